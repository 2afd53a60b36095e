package limits

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"shootout/internal/child"
	"shootout/internal/fio"
)

// Calibration is what the disk under a directory does, measured with fio:
// random 4k IOPS at queue depth 1 and 16, reads and writes, direct IO; and,
// when a cap is given, what the server would get under it.
type Calibration struct {
	Dir      string             `json:"dir"`
	Device   string             `json:"device"`
	Seconds  int                `json:"seconds_per_test"`
	IOPS     map[string]float64 `json:"iops"` // test name -> IOPS
	CapIOPS  int                `json:"cap_iops,omitempty"`
	Measured time.Time          `json:"measured"`
}

// Calibrate runs the fio tests on a file under dir (removed afterwards).
func Calibrate(dir string, seconds int, capIOPS int) (*Calibration, error) {
	if _, err := exec.LookPath("fio"); err != nil {
		return nil, errors.New("fio not found; fix: apt-get install -y fio")
	}
	dev, err := diskOf(dir)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(dir, "calibrate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	file := filepath.Join(work, "fio.dat")
	if err := layOut(file, NeighbourFileBytes); err != nil {
		return nil, err
	}
	c := &Calibration{Dir: dir, Device: dev, Seconds: seconds, IOPS: map[string]float64{}, CapIOPS: capIOPS, Measured: time.Now().UTC()}
	tests := []struct {
		name, rw string
		depth    int
	}{
		{"randread_qd1", "randread", 1}, {"randwrite_qd1", "randwrite", 1},
		{"randread_qd16", "randread", 16}, {"randwrite_qd16", "randwrite", 16},
	}
	for _, t := range tests {
		iops, err := fioIOPS(file, t.rw, t.depth, seconds, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
		c.IOPS[t.name] = iops
	}
	if capIOPS > 0 {
		g, err := Create(fmt.Sprintf("%d-calibrate", os.Getpid()), Request{IOPS: capIOPS}, dir)
		if err != nil {
			return nil, err
		}
		defer g.Remove()
		for _, t := range tests[:2] {
			iops, err := fioIOPS(file, t.rw, t.depth, seconds, g)
			if err != nil {
				return nil, fmt.Errorf("%s under the cap: %w", t.name, err)
			}
			c.IOPS[t.name+"_capped"] = iops
		}
	}
	return c, nil
}

func fioIOPS(file, rw string, depth, seconds int, g *Group) (float64, error) {
	fioPath, _ := exec.LookPath("fio")
	engine := "psync"
	if depth > 1 {
		engine = "libaio"
	}
	cmd := exec.Command(fioPath, "--name=shootout-calibrate", "--thread", "--filename="+file, fmt.Sprintf("--size=%d", NeighbourFileBytes),
		"--rw="+rw, "--bs=4k", "--direct=1", "--ioengine="+engine, fmt.Sprintf("--iodepth=%d", depth),
		"--time_based", fmt.Sprintf("--runtime=%d", seconds), "--output-format=json")
	if g != nil {
		if err := g.wrapShared(cmd); err != nil {
			return 0, err
		}
	}
	out, err := child.Output(cmd)
	if err != nil {
		return 0, fmt.Errorf("fio: %v", err)
	}
	r, w, err := fio.IOPS(out)
	return r + w, err
}

// Save writes the calibration as DIR/calibration.json.
func (c *Calibration) Save(dir string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "calibration.json"), append(b, '\n'), 0o644)
}
