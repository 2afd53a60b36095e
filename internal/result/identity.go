package result

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// GroupKey is what the repeats of one cell share: its id without the
// repeat number. The repeats of a cell are its sample; report and compare
// group by this key.
func (c Cell) GroupKey() string {
	if i := strings.LastIndex(c.ID, "__r"); i > 0 {
		return c.ID[:i]
	}
	return c.ID
}

// NameKey is GroupKey without the hash of the conditions that the id does
// not spell out: the cells of two runs that share it measured the same
// target, workload, dataset, clients and limits, and are compared when
// ConditionDiff finds nothing else differs.
func (c Cell) NameKey() string { return conditionHash.ReplaceAllString(c.GroupKey(), "") }

var conditionHash = regexp.MustCompile(`__h[0-9a-f]{8}$`)

// ConditionDiff lists every recorded field of the two cells that differs,
// the repeat number and the id aside, as "name: a vs b". Two cells measured
// the same thing only when it is empty. It walks the cells' JSON form, so a
// field added to Cell or Conditions is compared without a change here.
func (c Cell) ConditionDiff(o Cell) []string {
	a, b := identityFields(c), identityFields(o)
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(union(a, b))) {
		va, vb := a[k], b[k]
		if !reflect.DeepEqual(va, vb) {
			diffs = append(diffs, fmt.Sprintf("%s: %s vs %s", k, show(va), show(vb)))
		}
	}
	return diffs
}

// Identity is every field ConditionDiff compares, by its dotted name
// (conditions.trim, conditions.settings.NAME), each value as text: what
// the repeats of one row of a report must all share.
func (c Cell) Identity() map[string]string {
	out := map[string]string{}
	for k, v := range identityFields(c) {
		out[k] = show(v)
	}
	return out
}

// identityFields flattens a cell's JSON into dotted keys, leaving out what
// names a repeat rather than what it measured.
func identityFields(c Cell) map[string]any {
	c.ID, c.Repeat = "", 0
	b, _ := json.Marshal(c)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	out := map[string]any{}
	flatten("", m, out)
	delete(out, "id")
	delete(out, "repeat")
	return out
}

func flatten(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		out[key] = v
	}
}

func union(a, b map[string]any) map[string]any {
	u := maps.Clone(a)
	maps.Copy(u, b)
	return u
}

func show(v any) string {
	if v == nil {
		return "(unset)"
	}
	return fmt.Sprint(v)
}
