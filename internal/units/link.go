package units

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Link is a link between a cluster's nodes as --link gives it: a one-way
// delay and a bandwidth in bits per second (0: none).
type Link struct {
	Delay time.Duration
	Rate  int64
}

// rateUnits are tc's rate units (bits and bytes per second), longest
// first so "mbit" is not read as "bit".
var rateUnits = []struct {
	suffix string
	bits   float64
}{
	{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"gbps", 8e9}, {"mbps", 8e6}, {"kbps", 8e3}, {"bit", 1}, {"bps", 8},
}

// ParseLink reads "DELAY[,RATE]" (1ms,1gbit; 500us; 0,100mbit): a delay
// Go's durations spell, and a rate in tc's units.
func ParseLink(s string) (Link, error) {
	var l Link
	delay, rate, hasRate := strings.Cut(strings.TrimSpace(s), ",")
	d, err := time.ParseDuration(strings.TrimSpace(delay))
	if delay == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 || d > 10*time.Second {
		return l, fmt.Errorf("%q: the delay is a duration from 0 to 10s such as 1ms", s)
	}
	l.Delay = d
	if hasRate {
		if l.Rate, err = ParseRate(rate); err != nil {
			return l, fmt.Errorf("%q: %w", s, err)
		}
	}
	return l, nil
}

// ParseRate reads a rate in tc's units (100mbit, 1gbit, 10mbps) as bits
// per second.
func ParseRate(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, u := range rateUnits {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || f <= 0 {
				break
			}
			return int64(f * u.bits), nil
		}
	}
	return 0, fmt.Errorf("the rate %q is not one in tc's units such as 100mbit or 1gbit", s)
}

// String is the link as --link takes it.
func (l Link) String() string {
	s := l.Delay.String()
	if l.Rate > 0 {
		s += "," + formatRate(l.Rate)
	}
	return s
}

func formatRate(bits int64) string {
	for _, u := range rateUnits[:3] {
		if bits >= int64(u.bits) && bits%int64(u.bits) == 0 {
			return fmt.Sprintf("%d%s", bits/int64(u.bits), u.suffix)
		}
	}
	return fmt.Sprintf("%dbit", bits)
}
