package plan

import "testing"

// A variant whose readable id could be another's ("a=b-c" and "a-b=c"
// both read a-b-c) carries a hash of itself; a plain one reads as it is.
func TestVariantIDsTellVariantsApart(t *testing.T) {
	if id := variantID("writers=all link=1ms"); id != "writers-all" {
		t.Errorf("a plain variant's id is %q, want writers-all", id)
	}
	ids := map[string]string{}
	for _, v := range []string{"a=b-c", "a-b=c", "cut_link=n3@1s+7s", "cut_link=n3@1s+8s", "x=1 y=2", "x=1_y=2"} {
		id := variantID(v)
		if other, seen := ids[id]; seen {
			t.Errorf("%q and %q have one id %q", v, other, id)
		}
		ids[id] = v
	}
}
