package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"shootout/internal/metrics"
)

// The server's CPU and context switches are read over each tool's measured
// window, not over the client process's life: shootout's life includes its
// checks before and after the run (four full scans of the table), which
// divided by the window's queries made the server look dearer under
// shootout than under sysbench (issue 35).

// watchEvery is how often the server is read: a boundary falls between two
// readings and is interpolated, so the error is at most the server's CPU
// in half a period at either end (25 ms of a 10-s window), and a reading
// (the server's stat and each thread's status) costs well under a ms.
const watchEvery = 50 * time.Millisecond

type reading struct {
	at  time.Time
	cpu float64 // seconds: utime+stime of the processes, threads that ended included
	ctx float64 // context switches of their live threads
	// busy is every CPU's non-idle time on the machine (/proc/stat), in
	// seconds: less the server's and the client's, what others took
	busy float64
}

type serverWatch struct {
	pids []int
	stop chan struct{}
	done chan []reading
}

func watchServer(pids []int) *serverWatch {
	w := &serverWatch{pids: pids, stop: make(chan struct{}), done: make(chan []reading, 1)}
	first := w.read()
	go func() {
		rs := []reading{first}
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				rs = append(rs, w.read())
			case <-w.stop:
				w.done <- append(rs, w.read())
				return
			}
		}
	}()
	return w
}

func (w *serverWatch) end() []reading {
	close(w.stop)
	return <-w.done
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go builds for.
const clockTicks = 100

func (w *serverWatch) read() reading {
	r := reading{at: time.Now(), busy: machineBusy()}
	for _, pid := range w.pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// the fields after the command, which is in parentheses
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		r.cpu += float64(ut+st) / clockTicks
		r.ctx += float64(metrics.ThreadCtxSwitches(pid))
	}
	return r
}

// machineBusy is the time all CPUs spent outside idle and iowait.
func machineBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var ticks int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest times are in user already
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return float64(ticks) / clockTicks
}

// at interpolates the readings at t (linearly between the two around it).
func at(rs []reading, t time.Time) (reading, error) {
	if len(rs) == 0 || t.Before(rs[0].at) || t.After(rs[len(rs)-1].at) {
		return reading{}, fmt.Errorf("the window's edge %s is outside the server's readings", t.Format(time.RFC3339Nano))
	}
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		if t.After(b.at) {
			continue
		}
		span := b.at.Sub(a.at).Seconds()
		if span <= 0 {
			return b, nil
		}
		x := t.Sub(a.at).Seconds() / span
		return reading{at: t, cpu: a.cpu + x*(b.cpu-a.cpu), ctx: a.ctx + x*(b.ctx-a.ctx), busy: a.busy + x*(b.busy-a.busy)}, nil
	}
	return rs[len(rs)-1], nil
}

// overWindow sets the sample's server figures to those of [from, from+secs].
func (s *sample) overWindow(from time.Time, secs float64) error {
	if from.IsZero() || secs <= 0 {
		return fmt.Errorf("no measured window to read the server over (start %v, %.3f s)", from, secs)
	}
	a, err := at(s.readings, from)
	if err != nil {
		return err
	}
	b, err := at(s.readings, from.Add(time.Duration(secs*float64(time.Second))))
	if err != nil {
		return err
	}
	s.srvCPU, s.srvSwitch = b.cpu-a.cpu, b.ctx-a.ctx
	// the machine's CPUs over the window, less the server's and the client's
	s.others = max(0, (b.busy-a.busy-s.srvCPU-s.clientCPU())/(secs*float64(runtime.NumCPU())))
	return nil
}
