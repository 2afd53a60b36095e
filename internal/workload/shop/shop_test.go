package shop

import (
	"reflect"
	"strings"
	"testing"
)

// The page list is the seed's: 50 pages, one of them the checkout that
// writes (2% of the hits), counts that find rows where the page lists
// some, and the same list from the same seed.
func TestPageListHasTheSeedsShape(t *testing.T) {
	wd := newWorld(7, shape{3000})
	if len(wd.pages) != 50 {
		t.Fatalf("%d pages, want 50", len(wd.pages))
	}
	writes, kinds := 0, map[string]int{}
	for _, p := range wd.pages {
		kinds[p.Kind]++
		if p.Kind == "checkout" {
			writes += p.Weight
		}
		if p.Kind == "search" && p.term == "zzqx" {
			if p.count != 0 {
				t.Errorf("%s: count %d, want none", p.Name, p.count)
			}
			continue
		}
		if p.count == 0 {
			t.Errorf("%s: the data holds no row for it", p.Name)
		}
	}
	if share := float64(writes) / float64(wd.totalHits); share < 0.019 || share > 0.021 {
		t.Fatalf("writes are %.3f of the hits, want 0.02", share)
	}
	if kinds["product"] < 10 || kinds["category"] < 5 || kinds["checkout"] != 1 {
		t.Fatalf("page kinds %v", kinds)
	}
	again := newWorld(7, shape{3000})
	if !reflect.DeepEqual(wd.pages, again.pages) {
		t.Fatal("the same seed gave another page list")
	}
	if other := newWorld(8, shape{3000}); reflect.DeepEqual(wd.pages, other.pages) {
		t.Fatal("another seed gave the same page list")
	}
}

// A product row has the seed's ~200 columns, in the schema's order, and
// the head the pages are chosen by is the row's.
func TestProductRowsMatchTheSchema(t *testing.T) {
	cols := columnNames(tableByName("products"))
	if len(cols) < 195 || len(cols) > 205 {
		t.Fatalf("%d product columns, want about 200", len(cols))
	}
	bytes := 0
	for id := 1; id <= 200; id++ {
		head, row := productRow(3, id)
		if len(row) != len(cols) {
			t.Fatalf("row of %d values for %d columns", len(row), len(cols))
		}
		if row[0] != id || row[1] != head.sku || row[4] != head.group || row[9] != head.price || row[19] != head.active {
			t.Fatalf("product %d: the row does not carry its head: %v %v %v %v", id, row[1], row[4], row[9], row[19])
		}
		if row[len(productNamed)+2] != head.attr002 {
			t.Fatalf("attr_002 %v, head %q", row[len(productNamed)+2], head.attr002)
		}
		for _, v := range row {
			if s, ok := v.(string); ok {
				bytes += len(s)
			}
		}
		if !strings.Contains(head.name, groupKind(head.group)) {
			t.Fatalf("name %q does not name its kind %q", head.name, groupKind(head.group))
		}
	}
	// ~300 MB for 40,000 products in MyISAM, as the seed's: 5-8 KB a row
	if per := bytes / 200; per < 4000 || per > 9000 {
		t.Fatalf("%d bytes of text per product", per)
	}
}
