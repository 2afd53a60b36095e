package fio

import "testing"

func TestIOPSSumsEveryJob(t *testing.T) {
	out := []byte(`note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version":"fio-3.33","jobs":[{"read":{"iops":10.5},"write":{"iops":1}},{"read":{"iops":2},"write":{"iops":3.5}}]}`)
	r, w, err := IOPS(out)
	if err != nil || r != 12.5 || w != 4.5 {
		t.Errorf("IOPS = %v, %v, %v; want 12.5, 4.5", r, w, err)
	}
	for _, bad := range []string{"", "{}", `{"jobs":[]}`, "fio: no such file"} {
		if _, _, err := IOPS([]byte(bad)); err == nil {
			t.Errorf("IOPS(%q) should fail", bad)
		}
	}
}
