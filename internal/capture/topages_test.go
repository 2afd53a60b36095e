package capture

import "testing"

// An execute's parameters go in place of the ? outside quoted strings and
// names, as MariaDB literals.
func TestInlineWritesParametersAsLiterals(t *testing.T) {
	for _, c := range []struct {
		text   string
		params []any
		want   string
		ok     bool
	}{
		{"SELECT a FROM t WHERE b = ? AND c = '?' AND `d?` = ?", []any{1.0, "it's\\"}, "SELECT a FROM t WHERE b = 1 AND c = '?' AND `d?` = 'it\\'s\\\\'", true},
		{"SELECT 'a\\'?' , ?", []any{nil}, "SELECT 'a\\'?' , NULL", true},
		{"INSERT INTO t VALUES (?, ?)", []any{map[string]any{"hex": "00ff"}, 12345678901.0}, "INSERT INTO t VALUES (X'00ff', 12345678901)", true},
		{"SELECT ?", nil, "", false},
		{"SELECT 1", []any{1.0}, "", false},
	} {
		got, ok := inline(c.text, c.params)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("inline(%q, %v) = %q, %v; want %q, %v", c.text, c.params, got, ok, c.want, c.ok)
		}
	}
}
