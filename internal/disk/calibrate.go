package disk

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/fio"
	"shootout/internal/metrics"
)

// Tolerance is how far a measured figure may be from the model's own
// before calibrate calls the model off.
const Tolerance = 0.20

// Figure is one pattern's documented and measured rate on a model.
type Figure struct {
	Pattern  string  `json:"pattern"`
	Model    float64 `json:"model_per_s"`    // what the model gives (Simulate)
	Measured float64 `json:"measured_per_s"` // what fio got through the mechanism
	Ratio    float64 `json:"ratio"`
	OK       bool    `json:"ok"`
	Late     float64 `json:"late_share"`                      // commands answered after the model's time
	Alone    float64 `json:"mechanism_alone_per_s,omitempty"` // with the model off, when the figure is off
	Why      string  `json:"why,omitempty"`
	// Host is what the hypervisor and other processes took of the CPUs
	// while fio ran: the mechanism answers through the scheduler, so a
	// busy host makes every answer late by its wake-ups (two busy loops
	// beside fsync_4k put cloud at 0.72-0.81 of the model here)
	Host metrics.HostLoad `json:"host"`
}

// HostWasBusy is true when others took more than metrics.BusyHostShare
// of the CPUs while the figure was measured: a figure that is off then
// says more about the machine than about the model.
func (f Figure) HostWasBusy() bool { return f.Host.Busy() > metrics.BusyHostShare }

// Verdict is what calibrate prints beside the figure, and whether the
// model is off: a figure beyond this machine's mechanism is not the
// model's; one measured on a busy host is, but says to measure again.
func (f Figure) Verdict() (string, bool) {
	switch {
	case f.OK:
		return "ok", false
	case f.Why != "":
		return f.Why, false
	}
	v := fmt.Sprintf("OFF by more than %.0f%%", Tolerance*100)
	if f.HostWasBusy() {
		v += "; the host was busy (" + f.HostLine() + "): run calibrate again when it is quiet"
	}
	return v, true
}

// HostLine says what the host took while the figure was measured.
func (f Figure) HostLine() string {
	return fmt.Sprintf("steal %.0f%%, other processes %.0f%% of the CPUs", f.Host.Steal*100, f.Host.Others*100)
}

// Headroom: a figure that is off is put down to the mechanism (this
// machine's CPU, FUSE, the loop device) when the mechanism alone, with the
// model off, does less than this many times the model's figure: to answer
// at the model's times it must be faster than the model by a margin, as
// its own round trip and the sleeps' wake-ups come on top.
const Headroom = 1.5

// Calibration is one model's figures.
type Calibration struct {
	Disk       string  `json:"disk"`
	Seconds    int     `json:"seconds_per_pattern"`
	OverheadUS float64 `json:"mechanism_overhead_us"`
	// OverheadByIdle is the round trip after the CPUs idled, by idle time
	OverheadByIdle string   `json:"mechanism_overhead_by_idle"`
	Figures        []Figure `json:"figures"`
	Late           int64    `json:"late_commands"`
}

// OK is true when every figure is within Tolerance.
func (c *Calibration) OK() bool {
	for _, f := range c.Figures {
		if !f.OK {
			return false
		}
	}
	return true
}

// Calibrate attaches a disk of the model and runs every pattern on its
// loop device with fio (after Ramp), comparing each with the model's
// figure. progress is called before each pattern; record, if given, with
// the disk's directory once it exists and again when it is gone, so that
// a ledger can name it to the next command's sweep.
func Calibrate(spec Spec, seconds int, patterns []Pattern, progress func(Pattern), record func(dir string, exists bool)) (*Calibration, error) {
	if _, err := exec.LookPath("fio"); err != nil {
		return nil, errors.New("fio not found; fix: apt-get install -y fio")
	}
	if !spec.Modelled() {
		return nil, errors.New("calibrate --disk needs a model (hdd, ssd, cloud): none is the raw disk, see calibrate --dir")
	}
	d, err := Attach(spec, "calibrate", false)
	if err != nil {
		return nil, err
	}
	if record != nil {
		record(d.Dir, true)
	}
	defer func() {
		if d.Close() == nil && record != nil {
			record(d.Dir, false)
		}
	}()
	c := &Calibration{Disk: spec.String(), Seconds: seconds, OverheadUS: d.Overhead().Seconds() * 1e6, OverheadByIdle: d.OverheadLine()}
	d.Activate(true)
	for _, p := range patterns {
		if progress != nil {
			progress(p)
		}
		want, err := Simulate(spec, p, time.Duration(seconds)*time.Second)
		if err != nil {
			return nil, err
		}
		// every pattern starts on a fresh drive: a full write cache left by
		// the last one would take a minute to drain on an HDD; a writing
		// pattern then fills it, as the simulation's ramp does
		eng, _ := spec.newEngine()
		d.dev.reset(eng)
		if err := fillCache(d, p); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		late0, cmds0 := d.dev.late.Load(), d.dev.commands()
		host0 := metrics.SampleHost()
		got, err := fioRate(d.Loop, p, seconds)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		f := Figure{Pattern: p.Name, Model: want, Measured: got, Ratio: got / want, Host: metrics.SampleHost().Since(host0)}
		f.OK = math.Abs(f.Ratio-1) <= Tolerance
		if n := d.dev.commands() - cmds0; n > 0 {
			f.Late = float64(d.dev.late.Load()-late0) / float64(n)
		}
		if !f.OK {
			d.Activate(false)
			alone, err := fioRate(d.Loop, p, seconds)
			d.Activate(true)
			if err != nil {
				return nil, fmt.Errorf("%s with the model off: %w", p.Name, err)
			}
			f.Alone = alone
			if alone < Headroom*want {
				f.Why = fmt.Sprintf("beyond this machine: the mechanism alone (model off) does %.0f/s, less than %.1f× the model's %.0f/s", alone, Headroom, want)
			}
		}
		c.Figures = append(c.Figures, f)
	}
	c.Late = d.dev.late.Load()
	return c, nil
}

// fioRate runs p on the device and returns the rate fio reports after its
// ramp: reads or writes per second.
func fioRate(dev string, p Pattern, seconds int) (float64, error) {
	args := append(fioArgs(dev, p, seconds), fmt.Sprintf("--ramp_time=%d", int(Ramp.Seconds())), "--output-format=json")
	var stderr strings.Builder
	cmd := exec.Command("fio", args...)
	cmd.Stderr = &stderr
	out, err := child.Output(cmd)
	if err != nil {
		return 0, fmt.Errorf("fio: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	read, write, err := fio.IOPS(out)
	if err != nil {
		return 0, err
	}
	rate := read + write
	if rate == 0 {
		return 0, fmt.Errorf("fio did no IO: %s %s", strings.TrimSpace(stderr.String()), firstLine(out))
	}
	return rate, nil
}

func fioArgs(dev string, p Pattern, seconds int) []string {
	engine := "psync"
	if p.Depth > 1 {
		engine = "libaio"
	}
	args := []string{"--name=shootout-disk", "--thread", "--filename=" + dev, "--rw=" + p.RW, fmt.Sprintf("--bs=%d", p.BS),
		"--direct=1", "--ioengine=" + engine, fmt.Sprintf("--iodepth=%d", p.Depth),
		"--time_based", fmt.Sprintf("--runtime=%d", seconds), "--randrepeat=0", "--norandommap"}
	if p.Fsync {
		args = append(args, "--fsync=1")
	}
	return args
}

// fillLimit bounds the wait for a drive's write cache to fill.
const fillLimit = 2 * time.Minute

// fillCache runs a writing pattern until the drive's write cache is full,
// so that the figure is the sustained one the model documents, not the
// speed of a cache filling: how long the filling takes depends on this
// machine's round trip, the sustained rate only on the model. Patterns
// that flush after each write never fill it.
func fillCache(d *Disk, p Pattern) error {
	c, ok := d.dev.eng.(cached)
	if !ok || p.Fsync || !strings.Contains(p.RW, "write") {
		return nil
	}
	cmd := exec.Command("fio", fioArgs(d.Loop, p, int(fillLimit.Seconds()))...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := child.Start(cmd); err != nil {
		return fmt.Errorf("fio: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("the cache did not fill in %v: fio ended: %v %s", fillLimit, err, strings.TrimSpace(stderr.String()))
		case <-tick.C:
			d.dev.mu.Lock()
			full := c.cacheFull()
			d.dev.mu.Unlock()
			if full {
				cmd.Process.Signal(syscall.SIGINT)
				<-done
				return nil
			}
		}
	}
}

// Save writes the calibration as DIR/disk-calibration-MODEL.json.
func (c *Calibration) Save(dir string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(fmt.Sprintf("%s/disk-calibration-%s.json", dir, c.Disk), append(b, '\n'), 0o644)
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}
