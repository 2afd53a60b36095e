package metrics

import (
	"os"
	"strconv"
	"strings"
)

// HostSample is a reading of what this machine's CPUs gave to work that
// is not the calling process's: the hypervisor's steal and the CPU of
// other processes. Timing that goes through the kernel's scheduler (the
// disk model answering through FUSE and a loop device) is only as
// faithful as the CPUs are free; two samples say how free they were.
type HostSample struct {
	total, steal float64 // seconds of all CPUs, from /proc/stat
	others       map[int]float64
}

// pfKthread marks a kernel thread in /proc/PID/stat's flags: the loop
// device's and FUSE's workers are the mechanism being timed, not others.
const pfKthread = 0x00200000

// SampleHost reads /proc/stat and the CPU of every user process outside
// the calling process's tree.
func SampleHost() HostSample {
	h := HostSample{others: map[int]float64{}}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		// cpu user nice system idle iowait irq softirq steal (guest
		// time is already inside user and nice)
		for i := 1; i < len(f) && i <= 8; i++ {
			n, _ := strconv.ParseFloat(f[i], 64)
			h.total += n / clockTicks
			if i == 8 {
				h.steal = n / clockTicks
			}
		}
	}
	ours := map[int]bool{}
	for _, pid := range treePIDs([]int{os.Getpid()}) {
		ours[pid] = true
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || ours[pid] {
			continue
		}
		f := statFields(e.Name())
		if len(f) < 13 {
			continue
		}
		if flags, _ := strconv.ParseUint(f[6], 10, 64); flags&pfKthread != 0 {
			continue
		}
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		h.others[pid] = (utime + stime) / clockTicks
	}
	return h
}

// HostLoad is the share of all CPUs' time between two samples that went
// to the hypervisor (Steal) and to processes outside the caller's tree
// (Others), from 0 to 1.
type HostLoad struct {
	Steal  float64 `json:"steal_share"`
	Others float64 `json:"other_processes_share"`
}

// Since is the load from an earlier sample to h. A process that started
// in between counts whole; one that ended in between is lost.
func (h HostSample) Since(earlier HostSample) HostLoad {
	elapsed := h.total - earlier.total
	if elapsed <= 0 {
		return HostLoad{}
	}
	var others float64
	for pid, cpu := range h.others {
		if d := cpu - earlier.others[pid]; d >= 0 {
			others += d
		} else {
			others += cpu // the PID was reused by a process that started in between
		}
	}
	return HostLoad{Steal: max(h.steal-earlier.steal, 0) / elapsed, Others: max(others, 0) / elapsed}
}

// Busy is the share the caller did not get to use.
func (l HostLoad) Busy() float64 { return l.Steal + l.Others }

// BusyHostShare is the share of the CPUs others may take before a figure
// measured meanwhile is said to have run on a busy host: calibrate's
// verdict, a cell's "host busy" line, compare's list of repeats.
const BusyHostShare = 0.05
