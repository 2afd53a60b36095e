// Package units reads the sizes users write in flags, plans and disk
// models, so that "512M" means the same thing everywhere.
package units

import (
	"fmt"
	"strconv"
	"strings"
)

var suffixes = []struct {
	suffix string
	mult   int64
}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}}

// ParseBytes reads a size such as 512M, 1.5G, 64KB or 1073741824 (binary
// multiples, case-insensitive). Zero is a size; a negative number is not.
func ParseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range suffixes {
		if strings.HasSuffix(t, u.suffix) || strings.HasSuffix(t, u.suffix+"B") {
			mult = u.mult
			t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), u.suffix)
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || t == "" {
		return 0, fmt.Errorf("%q is not a size such as 512M or 1G", s)
	}
	return int64(n * float64(mult)), nil
}

// FormatBytes writes a byte count the way server settings and the dry
// run want it: whole gibibytes as G, else mebibytes, else kibibytes.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%dM", n>>20)
	default:
		return fmt.Sprintf("%dK", n>>10)
	}
}
