package workload

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// ownClient is a SQL workload whose clients connect by themselves, as
// client=libmariadb's do.
type ownClient struct {
	sqlOnly
	got proto.Endpoint
}

func (w *ownClient) OwnClients() bool { return true }
func (w *ownClient) NewOwnWorker(ctx context.Context, ep proto.Endpoint, ds Dataset, client int) (Worker, error) {
	w.got = ep
	return nil, nil
}

// sqlOnly is a SQL workload that does nothing.
type sqlOnly struct{}

func (sqlOnly) Name() string                                     { return "fake" }
func (sqlOnly) Description() string                              { return "" }
func (sqlOnly) Ops() []string                                    { return nil }
func (sqlOnly) Dataset(spec string, seed int64) (Dataset, error) { return Dataset{}, nil }
func (sqlOnly) DefaultDataset() string                           { return "" }
func (sqlOnly) Schema(d dialect.Dialect, ds Dataset) []string    { return nil }
func (sqlOnly) PostLoad(d dialect.Dialect, ds Dataset) []string  { return nil }
func (sqlOnly) Load(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset, progress Progress) (LoadStats, error) {
	return LoadStats{}, nil
}
func (sqlOnly) Loaded(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset) (bool, error) {
	return false, nil
}
func (sqlOnly) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds Dataset, client int) (Worker, error) {
	return nil, nil
}
func (sqlOnly) Before(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset) (State, error) {
	return nil, nil
}
func (sqlOnly) Check(ctx context.Context, db *sql.DB, d dialect.Dialect, ds Dataset, before State, counters map[string]int64) Invariants {
	return Invariants{}
}

// A client that connects by itself is given the server's endpoint, and
// no connection of the pool is taken for it (the pool here would panic).
func TestOwnClientsGetTheEndpointNotAConnection(t *testing.T) {
	w := &ownClient{}
	ep := proto.TCP(proto.SQL, "127.0.0.1", 3306)
	ep.Dialect = dialect.Dialect{Flavor: dialect.MySQL}
	s, err := Open(w, ep, &sql.DB{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewWorker(context.Background(), Dataset{}, 0); err != nil {
		t.Fatal(err)
	}
	if w.got.Address != "127.0.0.1:3306" || w.got.Dialect.Flavor != dialect.MySQL {
		t.Errorf("the client was given %v, want the server's endpoint", w.got)
	}
}

// A workload that speaks SQL only has no session on another protocol.
func TestOpenRefusesAProtocolTheWorkloadDoesNotSpeak(t *testing.T) {
	_, err := Open(sqlOnly{}, proto.Endpoint{Protocol: proto.Redis, Network: "unix", Address: "/x/redis.sock"}, nil)
	if err == nil || !strings.Contains(err.Error(), "speaks SQL only, not redis") {
		t.Errorf("Open: %v, want a refusal naming the protocol", err)
	}
}

// schemaOnly is a workload with tables and an index after the load.
type schemaOnly struct{ sqlOnly }

func (schemaOnly) Schema(d dialect.Dialect, ds Dataset) []string {
	return []string{"CREATE TABLE a (id INT PRIMARY KEY)", "CREATE TABLE b (id INT PRIMARY KEY)"}
}
func (schemaOnly) PostLoad(d dialect.Dialect, ds Dataset) []string {
	return []string{"CREATE INDEX i ON a(id)"}
}

type schemaRecorder struct{ got []string }

func (r *schemaRecorder) ExecSchema(ctx context.Context, stmt string, rows int64) error {
	r.got = append(r.got, fmt.Sprintf("%s /%d", stmt, rows))
	return nil
}

// A server of several nodes runs the workload's schema (the tables
// before the load, the index after it) its own way, told the dataset's
// rows; the pool runs none of it (here it would fail).
func TestSchemaGoesToTheServersOwnWay(t *testing.T) {
	ep := proto.TCP(proto.SQL, "127.0.0.1", 3306)
	ep.Dialect = dialect.Dialect{Flavor: dialect.MySQL}
	s, err := Open(schemaOnly{}, ep, &sql.DB{})
	if err != nil {
		t.Fatal(err)
	}
	r := &schemaRecorder{}
	s.(*SQLSession).SchemaBy(r)
	ds := Dataset{Rows: 42}
	if _, err := s.Load(context.Background(), ds, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.(Finisher).FinishLoad(context.Background(), ds, nil); err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE a (id INT PRIMARY KEY) /42|CREATE TABLE b (id INT PRIMARY KEY) /42|CREATE INDEX i ON a(id) /42"
	if got := strings.Join(r.got, "|"); got != want {
		t.Errorf("the server ran %q, want %q", got, want)
	}
}
