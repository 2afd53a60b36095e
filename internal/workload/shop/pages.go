package shop

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// A page is one URL of the shop's top 50, as siege's urls.txt lists it:
// a page type with its parameters fixed (category 57 sorted by price, page
// 2), and its hits per month (the weight siege -i would draw it by). Its
// statements are what a classic PHP or Perl shop sends to render it: the
// layout's (currencies, the menu, the cart summary, the brands in the
// footer, the promotion banner), then the page's own.
type page struct {
	Name   string
	Kind   string
	Weight int
	// parameters, by kind
	group, parent, manufacturer, collection, promotion int
	products                                           []int
	sortBy                                             string
	offset                                             int
	filter                                             filter
	term                                               string
	// count is the rows the page's count statement must find, from the
	// generator (-1: not checked)
	count int
}

// filter is a listing's narrowing.
type filter struct {
	manufacturer   int
	priceLo, price float64 // price BETWEEN priceLo AND price when price > 0
	attr002        string
}

func (f filter) matches(p product) bool {
	return (f.manufacturer == 0 || p.manufacturer == f.manufacturer) &&
		(f.price == 0 || (p.price >= f.priceLo && p.price <= f.price)) &&
		(f.attr002 == "" || p.attr002 == f.attr002)
}

// sorts are the listings' orders, as the shop's sort links name them.
var sorts = map[string]string{
	"popular":    "p.views DESC, p.id",
	"price-asc":  "p.price, p.id",
	"price-desc": "p.price DESC, p.id",
	"name":       "p.name, p.id",
	"new":        "p.created_at DESC, p.id",
	"rating":     "p.rating DESC, p.id",
}

const pageSize = 20

// world is what the generator knows of a dataset: every product's head and
// its promotion, for choosing pages that exist and for their counts.
type world struct {
	seed       int64
	products   []product // index id-1
	promotion  []int     // index id-1: its promotion, 0 for none
	pages      []page
	totalHits  int
	checkoutOf []int // products a checkout buys: active, in stock
}

func newWorld(seed int64, s shape) *world {
	wd := &world{seed: seed}
	for id := 1; id <= s.products; id++ {
		wd.products = append(wd.products, productHead(rowRNG(seed, "products", id), id))
		pr := 0
		if rows := promotionRows(seed, id); len(rows) > 0 {
			pr = rows[0][1].(int)
		}
		wd.promotion = append(wd.promotion, pr)
	}
	wd.pages = wd.pageList()
	for _, p := range wd.pages {
		wd.totalHits += p.Weight
	}
	return wd
}

// count is how many active products match.
func (wd *world) count(match func(i int, p product) bool) int {
	n := 0
	for i, p := range wd.products {
		if p.active && match(i, p) {
			n++
		}
	}
	return n
}

// ranked are the values of key over active products, most products first.
func (wd *world) ranked(key func(p product) int) []int {
	n := map[int]int{}
	for _, p := range wd.products {
		if p.active && key(p) != 0 {
			n[key(p)]++
		}
	}
	var out []int
	for k := range n {
		out = append(out, k)
	}
	sort.Slice(out, func(a, b int) bool {
		if n[out[a]] != n[out[b]] {
			return n[out[a]] > n[out[b]]
		}
		return out[a] < out[b]
	})
	return out
}

// pageList is the shop's top 50, most visited first, drawn from the
// dataset: popular categories and brands, products of every popularity,
// searches that find many, few and nothing, and one checkout (the 2% of
// writes).
func (wd *world) pageList() []page {
	list := wd.newPageMaker().topFifty()
	// hits per month fall with rank as a top-50 list's do (about 1/rank);
	// the checkout is the 2% of pages that write
	total := 0
	for i := range list {
		if list[i].Kind != "checkout" {
			list[i].Weight = 60000 / (i + 3)
			total += list[i].Weight
		}
	}
	for i := range list {
		if list[i].Kind == "checkout" {
			list[i].Weight = total * 2 / 98
		}
		list[i].Name = list[i].describe()
	}
	return list
}

// pageMaker draws pages from the dataset: the rankings of groups, brands,
// collections and top categories, the active promotions and products.
type pageMaker struct {
	wd                                    *world
	rng                                   *rand.Rand
	byGroup, byBrand, byCollection, byTop []int
	promos, active                        []int
}

func (wd *world) newPageMaker() *pageMaker {
	m := &pageMaker{wd: wd, rng: rand.New(rand.NewPCG(uint64(wd.seed), 50))}
	m.byGroup = wd.ranked(func(p product) int { return p.group })
	m.byBrand = wd.ranked(func(p product) int { return p.manufacturer })
	m.byCollection = wd.ranked(func(p product) int { return p.collection })
	m.byTop = wd.ranked(func(p product) int { return groupParent(p.group) })
	byPromo := map[int]bool{}
	for i, pr := range wd.promotion {
		if pr != 0 && pr <= activePromos && wd.products[i].active {
			byPromo[pr] = true
		}
	}
	for pr := 1; pr <= activePromos; pr++ {
		if byPromo[pr] {
			m.promos = append(m.promos, pr)
		}
	}
	for _, p := range wd.products {
		if p.active {
			m.active = append(m.active, p.id)
			if p.stock >= 20 {
				wd.checkoutOf = append(wd.checkoutOf, p.id)
			}
		}
	}
	return m
}

func (m *pageMaker) anyProduct() int { return m.active[m.rng.IntN(len(m.active))] }

func (m *pageMaker) category(g int, sortBy string, pageNo int, f filter) page {
	return page{Kind: "category", group: g, sortBy: sortBy, offset: (pageNo - 1) * pageSize, filter: f,
		count: m.wd.count(func(_ int, p product) bool { return p.group == g && f.matches(p) })}
}

func (m *pageMaker) top(g int, sortBy string, pageNo int) page {
	return page{Kind: "top-category", parent: g, sortBy: sortBy, offset: (pageNo - 1) * pageSize,
		count: m.wd.count(func(_ int, p product) bool { return groupParent(p.group) == g })}
}

func (m *pageMaker) brandPage(b int, sortBy string, pageNo int) page {
	return page{Kind: "brand", manufacturer: b, sortBy: sortBy, offset: (pageNo - 1) * pageSize,
		count: m.wd.count(func(_ int, p product) bool { return p.manufacturer == b })}
}

func (m *pageMaker) promo(pr int, sortBy string) page {
	return page{Kind: "promotion", promotion: pr, sortBy: sortBy,
		count: m.wd.count(func(i int, _ product) bool { return m.wd.promotion[i] == pr })}
}

func (m *pageMaker) search(term string) page {
	words := strings.Fields(term)
	return page{Kind: "search", term: term, count: m.wd.count(func(_ int, p product) bool {
		name := strings.ToLower(p.name)
		for _, w := range words {
			if !strings.Contains(name, w) {
				return false
			}
		}
		return true
	})}
}

func (m *pageMaker) card() page {
	return page{Kind: "product", products: []int{m.anyProduct()}, count: 1}
}

// priceRange is the middle half of group g's active prices.
func (m *pageMaker) priceRange(g int) (lo, hi float64) {
	var ps []float64
	for _, p := range m.wd.products {
		if p.group == g && p.active {
			ps = append(ps, p.price)
		}
	}
	sort.Float64s(ps)
	return ps[len(ps)/4], ps[len(ps)*3/4]
}

// topFifty is the list itself, in the order of its visits.
func (m *pageMaker) topFifty() []page {
	at := func(xs []int, i int) int { return xs[min(i, len(xs)-1)] }
	g0, g1 := at(m.byGroup, 0), at(m.byGroup, 1)
	lo, hi := m.priceRange(g1)
	kindTerm := groupKind(at(m.byTop, 0))
	skuPrefix := m.wd.products[m.anyProduct()-1].sku[:4]
	list := []page{
		{Kind: "home", count: -1},
		m.top(at(m.byTop, 0), "popular", 1),
		m.card(),
		m.category(g0, "price-asc", 1, filter{}),
		m.search(kindTerm),
		m.card(),
		m.top(at(m.byTop, 1), "popular", 2),
		m.brandPage(at(m.byBrand, 0), "popular", 1),
		{Kind: "sale", sortBy: "popular", count: -1},
		m.card(),
		m.category(g1, "popular", 1, filter{manufacturer: m.wd.products[firstIn(m.wd.products, g1)].manufacturer, priceLo: lo, price: hi}),
		{Kind: "new", sortBy: "new", count: -1},
		m.card(),
		m.promo(at(m.promos, 0), "popular"),
		m.category(g0, "price-desc", 3, filter{}),
		m.card(),
		{Kind: "hits", sortBy: "popular", count: -1},
		{Kind: "sku", term: skuPrefix, count: m.wd.count(func(_ int, p product) bool { return strings.HasPrefix(p.sku, skuPrefix) })},
		m.card(),
		m.brandPage(at(m.byBrand, 1), "price-asc", 1),
		m.category(at(m.byGroup, 2), "popular", 1, filter{attr002: m.wd.products[firstIn(m.wd.products, at(m.byGroup, 2))].attr002}),
		m.card(),
		{Kind: "compare", products: []int{m.anyProduct(), m.anyProduct(), m.anyProduct(), m.anyProduct()}, count: 4},
		{Kind: "collection", collection: at(m.byCollection, 0), sortBy: "name",
			count: m.wd.count(func(_ int, p product) bool { return p.collection == at(m.byCollection, 0) })},
		m.top(at(m.byTop, 2), "new", 1),
		m.card(),
		m.search("premium " + groupKind(at(m.byTop, 1))),
		m.promo(at(m.promos, 1), "price-asc"),
		m.card(),
		m.category(at(m.byGroup, 3), "name", 2, filter{}),
		{Kind: "brands", count: -1},
		m.card(),
		{Kind: "catalogue", count: -1},
		m.category(at(m.byGroup, 4), "rating", 1, filter{}),
		m.card(),
		{Kind: "search-text", term: "warranty delivery", count: -1},
		m.brandPage(at(m.byBrand, 2), "popular", 2),
		m.card(),
		{Kind: "collection", collection: at(m.byCollection, 1), sortBy: "price-asc",
			count: m.wd.count(func(_ int, p product) bool { return p.collection == at(m.byCollection, 1) })},
		{Kind: "reviews", products: []int{m.anyProduct()}, count: -1},
		m.card(),
		m.top(at(m.byTop, 0), "price-asc", 11),
		m.promo(at(m.promos, 2), "price-desc"),
		m.card(),
		{Kind: "cart", count: -1},
		m.search("zzqx"),
		m.category(at(m.byGroup, 5), "popular", 1, filter{manufacturer: m.wd.products[firstIn(m.wd.products, at(m.byGroup, 5))].manufacturer}),
		{Kind: "new", parent: at(m.byTop, 3), sortBy: "new", count: -1},
		m.card(),
		{Kind: "checkout", count: -1},
	}
	return list
}

// firstIn is the index of the first active product of group g.
func firstIn(ps []product, g int) int {
	for i, p := range ps {
		if p.group == g && p.active {
			return i
		}
	}
	return 0
}

// describe is the page's URL-like name, for the docs and the results.
func (p page) describe() string {
	var parts []string
	switch p.Kind {
	case "category":
		parts = append(parts, fmt.Sprintf("/catalog/%d", p.group))
	case "top-category":
		parts = append(parts, fmt.Sprintf("/catalog/%d", p.parent))
	case "brand":
		parts = append(parts, fmt.Sprintf("/brand/%d", p.manufacturer))
	case "promotion":
		parts = append(parts, fmt.Sprintf("/promo/%d", p.promotion))
	case "collection":
		parts = append(parts, fmt.Sprintf("/collection/%d", p.collection))
	case "product", "reviews":
		parts = append(parts, fmt.Sprintf("/%s/%d", p.Kind, p.products[0]))
	case "compare":
		parts = append(parts, fmt.Sprintf("/compare/%v", p.products))
	case "search", "sku", "search-text":
		parts = append(parts, fmt.Sprintf("/%s?q=%s", p.Kind, p.term))
	case "new":
		if p.parent != 0 {
			parts = append(parts, fmt.Sprintf("/new/%d", p.parent))
		} else {
			parts = append(parts, "/new")
		}
	default:
		parts = append(parts, "/"+p.Kind)
	}
	if p.sortBy != "" {
		parts = append(parts, "sort="+p.sortBy)
	}
	if p.offset > 0 {
		parts = append(parts, fmt.Sprintf("page=%d", p.offset/pageSize+1))
	}
	if f := p.filter; f.manufacturer != 0 {
		parts = append(parts, fmt.Sprintf("brand=%d", f.manufacturer))
	}
	if f := p.filter; f.price > 0 {
		parts = append(parts, fmt.Sprintf("price=%.2f-%.2f", f.priceLo, f.price))
	}
	if f := p.filter; f.attr002 != "" {
		parts = append(parts, "attr_002="+f.attr002)
	}
	if p.Kind == "home" {
		return "/"
	}
	return strings.Join(parts, " ")
}
