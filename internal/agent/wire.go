// Package agent runs a cell's clients in other processes: `shootout
// agent` serves one cell's share of clients over gRPC, driven by the run
// that owns the cell, which starts its agents on one barrier and merges
// what they send exactly (driver.Merge: every time slice's HDR
// histograms added up, never their percentiles).
//
// The messages are plain Go structs carried by gRPC under a JSON codec of
// this package's own (content subtype "json"): no .pb.go files are
// generated, and HDR histograms travel inside them in HdrHistogram's
// standard V2 encoding (hist.Wire).
package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/proto"
	"shootout/internal/workload"
)

// codec is gRPC's codec for this package's messages.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error)   { return json.Marshal(v) }
func (codec) Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
func (codec) Name() string                    { return "json" }
func init()                                   { encoding.RegisterCodec(codec{}) }
func callOpts() []grpc.CallOption             { return []grpc.CallOption{grpc.CallContentSubtype("json")} }
func serverOpts() []grpc.ServerOption         { return []grpc.ServerOption{grpc.ForceServerCodec(codec{})} }
func clientOpts() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(callOpts()...)}
}

// ClockRequest asks an agent the time; ClockReply is its answer.
type ClockRequest struct{}

// ClockReply is the agent's clock when it answered.
type ClockReply struct {
	NowUnixNs int64 `json:"now_unix_ns"`
}

// Endpoint is what the agent's clients connect to: proto.Endpoint's
// fields, and for SQL the settings each connection of the agent's own
// pool runs when it opens (SQLite's pragmas: target.ConnSettings).
// Password is a secret: it travels on the owner's gRPC stream only and
// goes to the clients, never to the agent's argv, environment or a log.
type Endpoint struct {
	Protocol, Network, Address, User, Password, Database, Engine string
	External                                                     bool
	Dialect                                                      dialect.Dialect
	Conn                                                         map[string]string
}

// RunRequest is one agent's share of a cell.
type RunRequest struct {
	Workload string            `json:"workload"`
	Params   map[string]string `json:"params"`
	Dataset  string            `json:"dataset"`
	Seed     int64             `json:"seed"`
	Endpoint Endpoint          `json:"endpoint"`
	// Clients is the cell's; ClientIDs the cell's client numbers this
	// agent runs; Agents how many agents share them.
	Clients   int   `json:"clients"`
	Agents    int   `json:"agents"`
	ClientIDs []int `json:"client_ids"`
	// StartUnixNs is the barrier in the agent's own clock.
	StartUnixNs      int64   `json:"start_unix_ns"`
	DurationNs       int64   `json:"duration_ns"`
	Ops              int64   `json:"ops"`
	Reps             int64   `json:"reps"`
	Rate             float64 `json:"rate"`
	Trim             float64 `json:"trim"`
	IntervalNs       int64   `json:"interval_ns"`
	MaxRetries       int     `json:"max_retries"`
	StallLimitNs     int64   `json:"stall_limit_ns"`
	InterruptGraceNs int64   `json:"interrupt_grace_ns"`
}

// PrepareReply says the agent made the cell's session (Prepare).
type PrepareReply struct{}

// RunReply is what the agent measured: its run in raw form and the CPU
// its process used meanwhile.
type RunReply struct {
	Raw   *driver.Raw `json:"raw"`
	CPUNs int64       `json:"cpu_ns"`
	// CPUs is how many CPUs the agent could run on.
	CPUs int `json:"cpus"`
	// RunNs and WaitNs are its threads' time on a CPU and runnable
	// waiting for one (a run queue, a quota's throttling) during the run,
	// from schedstat; both 0 where the kernel keeps none.
	RunNs  int64 `json:"run_ns,omitempty"`
	WaitNs int64 `json:"wait_ns,omitempty"`
}

// RunEvent is one message of a run's stream: a time slice as the
// agent's driver collects it, and last the reply.
type RunEvent struct {
	Slice *driver.RawSlice `json:"slice,omitempty"`
	Reply *RunReply        `json:"reply,omitempty"`
}

// server is what an agent serves: the clock, and Run as a stream of
// RunEvents after one RunRequest.
type server interface {
	Clock(context.Context, *ClockRequest) (*ClockReply, error)
	Prepare(context.Context, *RunRequest) (*PrepareReply, error)
	Run(context.Context, *RunRequest, func(driver.RawSlice)) (*RunReply, error)
}

// runStream serves Run: the request, then every slice, then the reply.
func runStream(srv any, stream grpc.ServerStream) error {
	req := new(RunRequest)
	if err := stream.RecvMsg(req); err != nil {
		return err
	}
	rep, err := srv.(server).Run(stream.Context(), req, func(rs driver.RawSlice) {
		_ = stream.SendMsg(&RunEvent{Slice: &rs}) // a lost owner ends the run through the context
	})
	if err != nil {
		return err
	}
	return stream.SendMsg(&RunEvent{Reply: rep})
}

func handler[Req any](call func(server, context.Context, *Req) (any, error)) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(srv any, ctx context.Context, decode func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
		in := new(Req)
		if err := decode(in); err != nil {
			return nil, err
		}
		return call(srv.(server), ctx, in)
	}
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "shootout.Agent",
	HandlerType: (*server)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "Clock", Handler: handler(func(s server, ctx context.Context, r *ClockRequest) (any, error) { return s.Clock(ctx, r) })},
		{MethodName: "Prepare", Handler: handler(func(s server, ctx context.Context, r *RunRequest) (any, error) { return s.Prepare(ctx, r) })},
	},
	Streams: []grpc.StreamDesc{{StreamName: "Run", Handler: runStream, ServerStreams: true}},
}

// FromProto is ep as an agent is given it; conn are the settings each
// connection runs when it opens (target.ConnSettings).
func FromProto(ep proto.Endpoint, conn map[string]string) Endpoint {
	return Endpoint{Protocol: string(ep.Protocol), Network: ep.Network, Address: ep.Address, User: ep.User,
		Password: ep.Password, Database: ep.Database, External: ep.External, Engine: ep.Engine, Dialect: ep.Dialect, Conn: conn}
}

// Supports is nil when n agents can run w's clients on protocol p, else
// why not in one line naming the workload: on SQL only a workload whose
// workers need nothing but the cell's parameters, dataset, seed and
// their client ids (workload.AgentReady); each agent opens a pool of its
// own.
func Supports(w workload.Workload, p proto.Name, n int) error {
	if p != proto.SQL {
		return nil
	}
	ar, ok := w.(workload.AgentReady)
	if !ok {
		return fmt.Errorf("--agents: workload %s shares state among its clients or with its checks, so its SQL clients run in shootout's own process only", w.Name())
	}
	if err := ar.InAgents(n); err != nil {
		return fmt.Errorf("--agents: workload %s: %w", w.Name(), err)
	}
	return nil
}
