// Package fio reads what fio reports, for the neighbours, the IO
// calibration and the disk models, which all run it with
// --output-format=json.
package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// IOPS sums the read and write IOs per second of every job in fio's JSON
// report. fio may print notes before the JSON; they are skipped.
func IOPS(out []byte) (read, write float64, err error) {
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	var rep struct {
		Jobs []struct {
			Read struct {
				IOPS float64 `json:"iops"`
			} `json:"read"`
			Write struct {
				IOPS float64 `json:"iops"`
			} `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return 0, 0, fmt.Errorf("read fio's report: %v", err)
	}
	if len(rep.Jobs) == 0 {
		return 0, 0, fmt.Errorf("fio's report has no jobs")
	}
	for _, j := range rep.Jobs {
		read += j.Read.IOPS
		write += j.Write.IOPS
	}
	return read, write, nil
}
