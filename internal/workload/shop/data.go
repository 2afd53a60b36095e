package shop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// The generated shop has the seed's shape: a products table of ~200
// columns (prices, stock, flags, dimensions, descriptions, attributes)
// joined to about ten lookup tables. Every row is a pure function of the
// dataset seed and its id (rowRNG), so a page list can name products,
// groups and search terms that exist without asking the database, and
// every target gets the same bytes.

const (
	topGroups     = 30
	childGroups   = 270
	manufacturers = 400
	collections   = 600
	promotions    = 40
	activePromos  = 25
	flagCount     = 12
	currencyCount = 4
	unitCount     = 8
	// attributes are attr_001 … attr_160: with the 39 named columns and
	// the id, the seed's ~200 columns
	attributes = 160
	// at most this many images and reviews per product; their ids are
	// (product-1)*max + k + 1, so a product's rows are known without a
	// counter
	maxImages  = 5
	maxReviews = 3
)

// shape is a dataset's size: the seed's shop has 40,000 products.
type shape struct{ products int }

// rowRNG is the generator of one row: the same row on every target and
// in every process, whatever order the rows are made in.
func rowRNG(seed int64, table string, id int) *rand.Rand {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(table); i++ {
		h = (h ^ uint64(table[i])) * 1099511628211
	}
	return rand.New(rand.NewPCG(uint64(seed)^h, uint64(id)))
}

// skewed draws 1..n with small numbers more likely (u^p): a few large
// categories and brands, many small ones, as in a real catalogue.
func skewed(rng *rand.Rand, n int, p float64) int {
	return 1 + min(n-1, int(float64(n)*math.Pow(rng.Float64(), p)))
}

var (
	kinds = []string{"kettle", "phone", "laptop", "chair", "lamp", "sofa", "jacket", "boots", "camera", "watch",
		"blender", "heater", "table", "monitor", "printer", "router", "speaker", "mixer", "drill", "saw",
		"tent", "bicycle", "stroller", "mattress", "curtain", "carpet", "vacuum", "iron", "toaster", "fridge"}
	adjectives = []string{"compact", "classic", "smart", "silent", "rugged", "slim", "premium", "basic", "pro", "mini",
		"deluxe", "eco", "turbo", "ultra", "family", "travel", "studio", "urban", "vintage", "modern"}
	colors    = []string{"black", "white", "silver", "red", "blue", "green", "grey", "beige", "brown", "gold", "pink", "orange"}
	materials = []string{"steel", "aluminium", "plastic", "oak", "pine", "glass", "leather", "cotton", "wool", "ceramic"}
	countries = []string{"China", "Germany", "Italy", "Poland", "Russia", "Japan", "Korea", "USA", "France", "Turkey", "Vietnam", "Spain", "Czechia", "Sweden", "India"}
	syllables = []string{"ka", "lo", "mi", "ra", "to", "zen", "vi", "dor", "sa", "ne", "ru", "tek", "bo", "la", "fi", "gra", "mon", "ex", "ol", "qu"}
	words     = []string{"the", "and", "with", "for", "of", "a", "in", "on", "is", "this", "your", "every", "day", "home", "use",
		"quality", "design", "easy", "care", "warranty", "delivery", "size", "power", "light", "strong", "soft", "fast", "safe",
		"clean", "simple", "reliable", "model", "series", "set", "kit", "included", "made", "from", "best", "price", "new",
		"year", "guarantee", "energy", "saving", "comfort", "style", "perfect", "gift", "office", "kitchen", "garden", "outdoor"}
	currencyCodes = []string{"RUB", "USD", "EUR", "CNY"}
	currencyRates = []float64{1, 92.5, 99.8, 12.7}
	unitNames     = []string{"pcs", "set", "pair", "kg", "m", "m2", "l", "pack"}
	flagNames     = []string{"new", "hit", "sale", "gift", "free delivery", "eco", "exclusive", "last items", "pre-order", "bundle", "premium", "award"}
)

func pickOf(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

// brand is manufacturer m's name: two or three syllables, capitalised.
func brand(m int) string {
	rng := rowRNG(0, "manufacturer-name", m)
	var b strings.Builder
	for i := 0; i < 2+rng.IntN(2); i++ {
		b.WriteString(pickOf(rng, syllables))
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:] + fmt.Sprint(m)
}

// prose is n bytes or so of the shop's usual copy.
func prose(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(pickOf(rng, words))
		if rng.IntN(12) == 0 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// groupKind is the product kind of a group: a top group is one kind, its
// children (parent 1 + (g-31) % 30) sell the same kind.
func groupKind(g int) string {
	if g <= topGroups {
		return kinds[g-1]
	}
	return kinds[(g-topGroups-1)%topGroups]
}

func groupParent(g int) int {
	if g <= topGroups {
		return 0
	}
	return 1 + (g-topGroups-1)%topGroups
}

// product is the part of a product row that pages and checks need to
// know: the rest is generated in productRow from the same generator.
type product struct {
	id, group, manufacturer, collection, currency, unit int
	sku, name                                           string
	price                                               float64
	stock                                               int
	active                                              bool
	attr002                                             string
}

// attrValues are the values of a string attribute: few, so that they make
// filters with several products each.
func attrValue(attr, v int) string {
	return fmt.Sprintf("%s-%d", materials[(attr+v)%len(materials)], v)
}

// productHead draws the part of product id's row that pages and checks
// need; productRow draws the rest from the same generator after it.
func productHead(rng *rand.Rand, id int) product {
	p := product{id: id}
	p.group = topGroups + skewed(rng, childGroups, 1.8)
	p.manufacturer = skewed(rng, manufacturers, 2.2)
	if rng.IntN(10) < 7 {
		p.collection = 1 + rng.IntN(collections)
	}
	p.currency = []int{1, 1, 1, 1, 1, 1, 1, 2, 2, 3}[rng.IntN(10)]
	p.unit = 1 + rng.IntN(unitCount)
	kind := groupKind(p.group)
	adj := pickOf(rng, adjectives)
	p.sku = fmt.Sprintf("%s%02d-%05d", strings.ToUpper(kind[:2]), p.manufacturer%100, id)
	p.name = fmt.Sprintf("%s %s %s %s-%d %s", strings.ToUpper(adj[:1])+adj[1:], kind, brand(p.manufacturer),
		strings.ToUpper(kind[:2]), 100+rng.IntN(9900), pickOf(rng, colors))
	p.price = math.Round((5+rng.ExpFloat64()*150)*100) / 100
	p.stock = 5 + rng.IntN(60)
	if rng.IntN(8) == 0 {
		p.stock = 0
	}
	p.active = rng.IntN(20) != 0
	p.attr002 = attrValue(2, rng.IntN(8))
	return p
}

// productRow generates product id's row in column order (productColumns)
// and its summary.
func productRow(seed int64, id int) (product, []any) {
	rng := rowRNG(seed, "products", id)
	p := productHead(rng, id)
	oldPrice := any(nil)
	isSale := rng.IntN(7) == 0
	if isSale {
		oldPrice = math.Round(p.price*(1.1+rng.Float64()*0.5)*100) / 100
	}
	created := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(float64(7*365*24*time.Hour) * math.Sqrt(rng.Float64())))
	row := []any{id, p.sku, p.name, strings.ToLower(strings.ReplaceAll(p.name, " ", "-")), p.group, p.manufacturer, p.collection, p.unit, p.currency,
		p.price, oldPrice, math.Round(p.price*0.6*100) / 100, p.stock, rng.IntN(5), 1 + rng.IntN(3)*rng.IntN(2),
		math.Round(rng.Float64()*300) / 10, float64(5 + rng.IntN(120)), float64(5 + rng.IntN(120)), float64(5 + rng.IntN(120)),
		p.active, created.After(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)), rng.IntN(15) == 0, isSale,
		rng.IntN(1000), int(math.Exp(rng.Float64() * 9)), math.Round((2+rng.Float64()*3)*10) / 10, rng.IntN(400),
		created, created.Add(time.Duration(rng.IntN(400*24)) * time.Hour),
		fmt.Sprintf("46%011d", id), []int{0, 6, 12, 12, 24, 36}[rng.IntN(6)], pickOf(rng, countries), pickOf(rng, colors), pickOf(rng, materials),
		p.name + " buy online", prose(rng, 150), strings.Join([]string{groupKind(p.group), brand(p.manufacturer), pickOf(rng, colors), pickOf(rng, materials)}, ", "),
		prose(rng, 200+rng.IntN(300)), prose(rng, 2000+rng.IntN(4000)),
	}
	for a := 1; a <= attributes; a++ {
		var v any
		switch a % 5 {
		case 0:
			v = rng.IntN(21)
		case 1:
			v = float64(rng.IntN(10000)) / 10
		case 2:
			v = attrValue(a, rng.IntN(8))
			if a == 2 {
				v = p.attr002 // drawn with the head, for the filter pages
			}
		case 3:
			v = rng.IntN(1001)
		case 4:
			v = prose(rng, 8+rng.IntN(30))
		}
		if rng.IntN(10) == 0 && a != 2 {
			v = nil // not every property applies to every product
		}
		row = append(row, v)
	}
	return p, row
}

// productNamed are products' columns before the attributes (id first).
var productNamed = []dialect.Column{
	{Name: "sku", Type: "str(32)", NotNull: true}, {Name: "name", Type: "str(255)", NotNull: true}, {Name: "slug", Type: "str(255)"},
	{Name: "group_id", Type: "int", NotNull: true}, {Name: "manufacturer_id", Type: "int", NotNull: true}, {Name: "collection_id", Type: "int", NotNull: true},
	{Name: "unit_id", Type: "int", NotNull: true}, {Name: "currency_id", Type: "int", NotNull: true},
	{Name: "price", Type: "money", NotNull: true}, {Name: "old_price", Type: "money"}, {Name: "purchase_price", Type: "money"},
	{Name: "stock", Type: "int", NotNull: true}, {Name: "reserved", Type: "int", NotNull: true}, {Name: "min_order", Type: "int"},
	{Name: "weight", Type: "float"}, {Name: "width", Type: "float"}, {Name: "height", Type: "float"}, {Name: "depth", Type: "float"},
	{Name: "is_active", Type: "bool", NotNull: true}, {Name: "is_new", Type: "bool", NotNull: true}, {Name: "is_hit", Type: "bool", NotNull: true},
	{Name: "is_sale", Type: "bool", NotNull: true}, {Name: "sort", Type: "int"}, {Name: "views", Type: "int"}, {Name: "rating", Type: "float"},
	{Name: "votes", Type: "int"}, {Name: "created_at", Type: "datetime"}, {Name: "updated_at", Type: "datetime"},
	{Name: "barcode", Type: "str(32)"}, {Name: "warranty_months", Type: "int"}, {Name: "country", Type: "str(32)"}, {Name: "color", Type: "str(32)"},
	{Name: "material", Type: "str(64)"}, {Name: "meta_title", Type: "str(255)"}, {Name: "meta_description", Type: "str(255)"},
	{Name: "meta_keywords", Type: "str(255)"}, {Name: "short_description", Type: "text"}, {Name: "description", Type: "text"},
}

func attrName(a int) string { return fmt.Sprintf("attr_%03d", a) }

func productColumns() []dialect.Column {
	cols := append([]dialect.Column(nil), productNamed...)
	for a := 1; a <= attributes; a++ {
		typ := map[int]string{0: "int", 1: "float", 2: "str(32)", 3: "int", 4: "str(64)"}[a%5]
		cols = append(cols, dialect.Column{Name: attrName(a), Type: typ})
	}
	return cols
}

// tables is the shop's schema. The indexes are a classic shop's: the keys
// its joins follow, not every filter its pages apply (sorting by price or
// filtering by a property reads the category's rows), as the seed's
// join_buffer_size of 158M suggests.
func tables() []dialect.Table {
	return []dialect.Table{
		{Name: "currencies", Columns: []dialect.Column{{Name: "code", Type: "str(3)", NotNull: true}, {Name: "rate", Type: "float", NotNull: true}, {Name: "is_default", Type: "bool", NotNull: true}}},
		{Name: "units", Columns: []dialect.Column{{Name: "name", Type: "str(16)", NotNull: true}}},
		{Name: "manufacturers", Columns: []dialect.Column{{Name: "name", Type: "str(64)", NotNull: true}, {Name: "country", Type: "str(32)"},
			{Name: "url", Type: "str(128)"}, {Name: "logo", Type: "str(128)"}, {Name: "description", Type: "text"}, {Name: "sort", Type: "int"}}},
		{Name: "product_groups", Columns: []dialect.Column{{Name: "parent_id", Type: "int", NotNull: true}, {Name: "name", Type: "str(128)", NotNull: true},
			{Name: "slug", Type: "str(128)"}, {Name: "sort", Type: "int"}, {Name: "is_active", Type: "bool", NotNull: true}, {Name: "description", Type: "text"}},
			Indexes: []dialect.Index{{Name: "ix_groups_parent", Cols: []string{"parent_id"}}}},
		{Name: "collections", Columns: []dialect.Column{{Name: "manufacturer_id", Type: "int", NotNull: true}, {Name: "name", Type: "str(128)", NotNull: true}, {Name: "description", Type: "text"}},
			Indexes: []dialect.Index{{Name: "ix_collections_manufacturer", Cols: []string{"manufacturer_id"}}}},
		{Name: "promotions", Columns: []dialect.Column{{Name: "name", Type: "str(128)", NotNull: true}, {Name: "discount_pct", Type: "int", NotNull: true},
			{Name: "starts", Type: "date"}, {Name: "ends", Type: "date"}, {Name: "is_active", Type: "bool", NotNull: true}, {Name: "banner", Type: "str(128)"}}},
		{Name: "product_promotions", NoID: true, Columns: []dialect.Column{{Name: "product_id", Type: "int", NotNull: true}, {Name: "promotion_id", Type: "int", NotNull: true}},
			Indexes: []dialect.Index{{Name: "ix_pp_product", Cols: []string{"product_id"}}, {Name: "ix_pp_promotion", Cols: []string{"promotion_id"}}}},
		{Name: "special_flags", Columns: []dialect.Column{{Name: "name", Type: "str(32)", NotNull: true}, {Name: "icon", Type: "str(64)"}}},
		{Name: "product_flags", NoID: true, Columns: []dialect.Column{{Name: "product_id", Type: "int", NotNull: true}, {Name: "flag_id", Type: "int", NotNull: true}},
			Indexes: []dialect.Index{{Name: "ix_pf_product", Cols: []string{"product_id"}}, {Name: "ix_pf_flag", Cols: []string{"flag_id"}}}},
		{Name: "products", Columns: productColumns(),
			Indexes: []dialect.Index{{Name: "ix_products_group", Cols: []string{"group_id"}}, {Name: "ix_products_manufacturer", Cols: []string{"manufacturer_id"}},
				{Name: "ix_products_collection", Cols: []string{"collection_id"}}, {Name: "ix_products_sku", Cols: []string{"sku"}, Unique: true}}},
		{Name: "product_images", Columns: []dialect.Column{{Name: "product_id", Type: "int", NotNull: true}, {Name: "path", Type: "str(128)", NotNull: true},
			{Name: "sort", Type: "int", NotNull: true}, {Name: "alt", Type: "str(255)"}},
			Indexes: []dialect.Index{{Name: "ix_images_product", Cols: []string{"product_id"}}}},
		{Name: "reviews", Columns: []dialect.Column{{Name: "product_id", Type: "int", NotNull: true}, {Name: "author", Type: "str(64)"}, {Name: "rating", Type: "int", NotNull: true},
			{Name: "body", Type: "text"}, {Name: "created_at", Type: "datetime"}, {Name: "is_published", Type: "bool", NotNull: true}},
			Indexes: []dialect.Index{{Name: "ix_reviews_product", Cols: []string{"product_id"}}}},
		{Name: "carts", Columns: []dialect.Column{{Name: "session", Type: "str(40)", NotNull: true}, {Name: "created_at", Type: "datetime"}}},
		{Name: "cart_items", Columns: []dialect.Column{{Name: "cart_id", Type: "int", NotNull: true}, {Name: "product_id", Type: "int", NotNull: true},
			{Name: "qty", Type: "int", NotNull: true}, {Name: "price", Type: "money", NotNull: true}, {Name: "added_at", Type: "datetime"}},
			Indexes: []dialect.Index{{Name: "ix_cart_items_cart", Cols: []string{"cart_id"}}}},
		{Name: "orders", Columns: []dialect.Column{{Name: "cart_id", Type: "int", NotNull: true}, {Name: "customer", Type: "str(128)"}, {Name: "email", Type: "str(128)"},
			{Name: "phone", Type: "str(32)"}, {Name: "address", Type: "text"}, {Name: "total", Type: "money", NotNull: true}, {Name: "status", Type: "int", NotNull: true},
			{Name: "created_at", Type: "datetime"}}},
		{Name: "order_items", Columns: []dialect.Column{{Name: "order_id", Type: "int", NotNull: true}, {Name: "product_id", Type: "int", NotNull: true},
			{Name: "qty", Type: "int", NotNull: true}, {Name: "price", Type: "money", NotNull: true}},
			Indexes: []dialect.Index{{Name: "ix_order_items_order", Cols: []string{"order_id"}}}},
	}
}

func columnNames(t dialect.Table) []string {
	var out []string
	if !t.NoID {
		out = append(out, "id")
	}
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

func tableByName(name string) dialect.Table {
	for _, t := range tables() {
		if t.Name == name {
			return t
		}
	}
	panic("no shop table " + name)
}

// productBatch is how many products a load batch holds: the rows of a
// 200-column table are ~6 KB, so a batch is a few MB.
const productBatch = 500

// batches are the dataset's load batches in table order: the lookups,
// then products with their images, reviews, flags and promotions per
// range of products.
func batches(seed int64, s shape) []func() workload.Batch {
	var out []func() workload.Batch
	one := func(table string, rows func() [][]any) {
		t := tableByName(table)
		out = append(out, func() workload.Batch { return workload.Batch{Table: table, Cols: columnNames(t), Rows: rows()} })
	}
	one("currencies", func() (rows [][]any) {
		for i, c := range currencyCodes {
			rows = append(rows, []any{i + 1, c, currencyRates[i], i == 0})
		}
		return
	})
	one("units", func() (rows [][]any) {
		for i, u := range unitNames {
			rows = append(rows, []any{i + 1, u})
		}
		return
	})
	one("manufacturers", func() (rows [][]any) {
		for m := 1; m <= manufacturers; m++ {
			rng := rowRNG(seed, "manufacturers", m)
			rows = append(rows, []any{m, brand(m), pickOf(rng, countries), "https://" + strings.ToLower(brand(m)) + ".example",
				fmt.Sprintf("/img/brands/%d.png", m), prose(rng, 300+rng.IntN(700)), rng.IntN(100)})
		}
		return
	})
	one("product_groups", func() (rows [][]any) {
		for g := 1; g <= topGroups+childGroups; g++ {
			rng := rowRNG(seed, "product_groups", g)
			name := groupKind(g) + "s"
			if g > topGroups {
				name = pickOf(rng, adjectives) + " " + name + fmt.Sprintf(" %d", g)
			}
			rows = append(rows, []any{g, groupParent(g), name, strings.ReplaceAll(name, " ", "-"), rng.IntN(100), rng.IntN(30) != 0, prose(rng, 200)})
		}
		return
	})
	one("collections", func() (rows [][]any) {
		for c := 1; c <= collections; c++ {
			rng := rowRNG(seed, "collections", c)
			rows = append(rows, []any{c, 1 + (c-1)%manufacturers, brand(1+(c-1)%manufacturers) + " " + pickOf(rng, adjectives) + fmt.Sprintf(" %d", c), prose(rng, 200)})
		}
		return
	})
	one("promotions", func() (rows [][]any) {
		for pr := 1; pr <= promotions; pr++ {
			rng := rowRNG(seed, "promotions", pr)
			start := time.Date(2026, time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
			rows = append(rows, []any{pr, fmt.Sprintf("%s week %d", pickOf(rng, adjectives), pr), 5 + 5*rng.IntN(8),
				start.Format("2006-01-02"), start.AddDate(0, 1, 0).Format("2006-01-02"), pr <= activePromos, fmt.Sprintf("/img/promo/%d.jpg", pr)})
		}
		return
	})
	one("special_flags", func() (rows [][]any) {
		for f := 1; f <= flagCount; f++ {
			rows = append(rows, []any{f, flagNames[f-1], fmt.Sprintf("/img/flags/%d.svg", f)})
		}
		return
	})
	for first := 1; first <= s.products; first += productBatch {
		first, last := first, min(first+productBatch-1, s.products)
		byTable := func(table string, rowsOf func(id int) [][]any) {
			t := tableByName(table)
			out = append(out, func() workload.Batch {
				var rows [][]any
				for id := first; id <= last; id++ {
					rows = append(rows, rowsOf(id)...)
				}
				return workload.Batch{Table: table, Cols: columnNames(t), Rows: rows}
			})
		}
		byTable("products", func(id int) [][]any { _, row := productRow(seed, id); return [][]any{row} })
		byTable("product_images", func(id int) [][]any { return imageRows(seed, id) })
		byTable("reviews", func(id int) [][]any { return reviewRows(seed, id) })
		byTable("product_flags", func(id int) [][]any { return flagRows(seed, id) })
		byTable("product_promotions", func(id int) [][]any { return promotionRows(seed, id) })
	}
	return out
}

func imageRows(seed int64, p int) (rows [][]any) {
	rng := rowRNG(seed, "product_images", p)
	for k := 0; k < 1+rng.IntN(maxImages); k++ {
		rows = append(rows, []any{(p-1)*maxImages + k + 1, p, fmt.Sprintf("/img/p/%d/%d/%d.jpg", p%100, p, k), k, prose(rng, 30)})
	}
	return
}

func reviewRows(seed int64, p int) (rows [][]any) {
	rng := rowRNG(seed, "reviews", p)
	for k := 0; k < rng.IntN(maxReviews+1); k++ {
		at := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(6*365*24)) * time.Hour)
		rows = append(rows, []any{(p-1)*maxReviews + k + 1, p, "customer" + fmt.Sprint(rng.IntN(50000)), 1 + rng.IntN(5), prose(rng, 100+rng.IntN(600)), at, rng.IntN(10) != 0})
	}
	return
}

func flagRows(seed int64, p int) (rows [][]any) {
	rng := rowRNG(seed, "product_flags", p)
	seen := map[int]bool{}
	for k := 0; k < rng.IntN(4); k++ {
		if f := 1 + rng.IntN(flagCount); !seen[f] {
			seen[f] = true
			rows = append(rows, []any{p, f})
		}
	}
	return
}

func promotionRows(seed int64, p int) (rows [][]any) {
	rng := rowRNG(seed, "product_promotions", p)
	if rng.IntN(100) < 15 {
		rows = append(rows, []any{p, 1 + rng.IntN(promotions)})
	}
	return
}

// loadRows estimates the rows a load writes, for the progress bar.
func (s shape) loadRows() int64 {
	return int64(s.products)*(1+3+3/2+3/2+1) + manufacturers + collections + topGroups + childGroups
}
