package units

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCount reads a count as users write row counts: 1000000, 100k, 10M.
func ParseCount(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1_000_000, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a count such as 10000, 100k or 1M", s)
	}
	return n * mult, nil
}
