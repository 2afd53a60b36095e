package units

import (
	"testing"
	"time"
)

func TestParseLink(t *testing.T) {
	for in, want := range map[string]Link{
		"1ms,1gbit": {time.Millisecond, 1e9}, "500us": {500 * time.Microsecond, 0},
		"0,100mbit": {0, 100e6}, "2ms, 10mbps": {2 * time.Millisecond, 80e6},
	} {
		got, err := ParseLink(in)
		if err != nil || got != want {
			t.Errorf("ParseLink(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if s := (Link{time.Millisecond, 1e9}).String(); s != "1ms,1gbit" {
		t.Errorf("String: %q", s)
	}
	for _, bad := range []string{"", "fast", "1ms,", "1ms,fast", "-1ms", "1ms,0mbit"} {
		if _, err := ParseLink(bad); err == nil {
			t.Errorf("ParseLink(%q) accepted", bad)
		}
	}
}
