// Package disk puts a server's data on a modelled device: an HDD, a SATA
// SSD or a cloud volume whose timing comes from a model of the device, not
// from a budget of IOs. The mechanism is a loop device over a single file
// served by shootout itself through FUSE: every IO the kernel sends to the
// "disk" (reads, writes, flushes, with their offsets) reaches the model,
// which decides when it completes. docs/disks.md explains the models.
package disk

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"shootout/internal/units"
)

// Spec is a parsed --disk value: a model name and its parameters.
type Spec struct {
	Model  string            // hdd, ssd, cloud, none
	Params map[string]string // as given; defaults are not listed
}

// Models lists the known models in the order docs and errors show them.
var Models = []string{"hdd", "ssd", "cloud", "none"}

// params each model takes, with defaults (strings, as on the command line).
var defaults = map[string]map[string]string{
	"hdd": {
		"size":       "16G",   // the virtual disk, like the seed's VM disk; seeks span it
		"rpm":        "7200",  // rotational latency, and with the media rate, the track size
		"media_mbs":  "150",   // sequential transfer off the platter, MB/s
		"seek_ms":    "0.8",   // track-to-track seek
		"stroke_ms":  "15",    // full-stroke seek; a random seek over the disk averages ~8.4 ms
		"cache":      "32M",   // the drive's write cache; 0 = write-through
		"flush":      "drain", // drain: a flush waits for the cache to reach the platter; ignore: acknowledged at once (battery-backed controller)
		"queue":      "32",    // commands the drive reorders (NCQ); 1 = first come, first served
		"readahead":  "1M",    // the drive reads on after a read into a segment of this size
		"command_ms": "0.1",   // controller overhead per command
	},
	"ssd": {
		"size":       "16G",
		"read_us":    "90",    // a 4k read from flash
		"write_us":   "60",    // a 4k write into the drive's DRAM
		"channels":   "4",     // flash operations in parallel
		"iops":       "40000", // the controller's ceiling, per 128 KB
		"link_mbs":   "520",   // SATA 6 Gb/s after encoding
		"flush_ms":   "0.5",   // a flush of the DRAM to flash (no power-loss protection)
		"command_us": "5",
	},
	"cloud": {
		"size":       "16G",
		"latency_ms": "0.8",  // network round trip and storage service per IO
		"flush_ms":   "0.8",  // a flush is a round trip to the storage servers too
		"iops":       "3000", // provisioned IOPS
		"mbs":        "125",  // provisioned throughput, MB/s
		"io_kb":      "256",  // an IO counts once per this many KB, as the provider bills
		"burst":      "300",  // IOs above the rate allowed at once (credits); 0.1 s of the rate by default
	},
	"none": {},
}

// Parse reads MODEL[:key=value,...]. Unknown models and keys are errors
// that name what would be right.
func Parse(s string) (Spec, error) {
	name, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	d, ok := defaults[name]
	if !ok {
		return Spec{}, fmt.Errorf("unknown disk model %q: want one of %s (with :key=value,... to change a parameter)", name, strings.Join(Models, ", "))
	}
	sp := Spec{Model: name, Params: map[string]string{}}
	if rest == "" {
		return sp, nil
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Spec{}, fmt.Errorf("disk %s: %q is not key=value", name, kv)
		}
		if _, known := d[k]; !known {
			return Spec{}, fmt.Errorf("disk %s has no parameter %q: it takes %s", name, k, strings.Join(keys(d), ", "))
		}
		sp.Params[k] = v
	}
	if _, err := sp.newEngine(); err != nil {
		return Spec{}, err
	}
	return sp, nil
}

// String is the canonical form: model, then the changed parameters sorted.
func (s Spec) String() string {
	if len(s.Params) == 0 {
		return s.Model
	}
	var kv []string
	for _, k := range keys(s.Params) {
		kv = append(kv, k+"="+s.Params[k])
	}
	return s.Model + ":" + strings.Join(kv, ",")
}

// Modelled is false for none: the data stays on the raw disk.
func (s Spec) Modelled() bool { return s.Model != "" && s.Model != "none" }

// Settings is every parameter with its value in effect, for the result.
func (s Spec) Settings() map[string]string {
	out := map[string]string{}
	for k, v := range defaults[s.Model] {
		out[k] = v
	}
	for k, v := range s.Params {
		out[k] = v
	}
	return out
}

// Size is the virtual disk's size in bytes.
func (s Spec) Size() int64 {
	n, _ := units.ParseBytes(s.Settings()["size"])
	return n
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// reader reads typed parameters, keeping the first error.
type reader struct {
	model string
	p     map[string]string
	err   error
}

func (r *reader) fail(k, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("disk %s: %s=%q: want %s", r.model, k, r.p[k], want)
	}
}

func (r *reader) float(k string, min float64) float64 {
	v, err := strconv.ParseFloat(r.p[k], 64)
	if err != nil || v < min || math.IsInf(v, 0) {
		r.fail(k, fmt.Sprintf("a number of at least %g", min))
		return min
	}
	return v
}

func (r *reader) ms(k string, min float64) time.Duration {
	return time.Duration(r.float(k, min) * float64(time.Millisecond))
}

func (r *reader) us(k string, min float64) time.Duration {
	return time.Duration(r.float(k, min) * float64(time.Microsecond))
}

func (r *reader) bytes(k string, min int64) int64 {
	n, err := units.ParseBytes(r.p[k])
	if err != nil || n < min {
		r.fail(k, fmt.Sprintf("a size of at least %d bytes, like 32M or 16G", min))
		return min
	}
	return n
}

func (r *reader) choice(k string, allowed ...string) string {
	for _, a := range allowed {
		if r.p[k] == a {
			return a
		}
	}
	r.fail(k, "one of "+strings.Join(allowed, ", "))
	return allowed[0]
}

// newEngine builds the model's timing engine from the parameters.
func (s Spec) newEngine() (engine, error) {
	r := &reader{model: s.Model, p: s.Settings()}
	var e engine
	switch s.Model {
	case "hdd":
		h := &hdd{
			size:      r.bytes("size", 64<<20),
			rpm:       r.float("rpm", 1000),
			mediaRate: r.float("media_mbs", 1) * 1e6,
			t2t:       r.ms("seek_ms", 0),
			stroke:    r.ms("stroke_ms", 0),
			cacheCap:  r.bytes("cache", 0),
			flushMode: r.choice("flush", "drain", "ignore"),
			queueMax:  int(r.float("queue", 1)),
			raCap:     r.bytes("readahead", 0),
			command:   r.ms("command_ms", 0),
		}
		if h.stroke < h.t2t {
			r.fail("stroke_ms", "at least seek_ms")
		}
		h.init()
		e = h
	case "ssd":
		e = &flash{
			readLat:  r.us("read_us", 1),
			writeLat: r.us("write_us", 1),
			channels: int(r.float("channels", 1)),
			linkRate: r.float("link_mbs", 1) * 1e6,
			flushLat: r.ms("flush_ms", 0),
			command:  r.us("command_us", 0),
			iops:     r.float("iops", 1),
			ioUnit:   128 << 10,
			size:     r.bytes("size", 64<<20),
		}
	case "cloud":
		c := &flash{
			readLat:  r.ms("latency_ms", 0.01),
			writeLat: r.ms("latency_ms", 0.01),
			flushLat: r.ms("flush_ms", 0),
			iops:     r.float("iops", 1),
			bps:      r.float("mbs", 1) * 1e6,
			ioUnit:   int64(r.float("io_kb", 4) * 1024),
			burst:    r.float("burst", 0),
			size:     r.bytes("size", 64<<20),
		}
		e = c
	default:
		return nil, nil
	}
	return e, r.err
}
