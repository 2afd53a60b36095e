package shop

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/workload"
)

// counts are what a client's committed writes and checked reads did.
type counts struct {
	carts, cartItems, orders, orderItems, qty, outOfStock int64
	pages, checkedCounts, logicalBytes                    int64
}

type worker struct {
	w     *Workload
	wd    *world
	d     dialect.Dialect
	conn  *sql.Conn
	rng   *rand.Rand
	next  int   // the next page of the list (order=list)
	cart  int64 // the client's last cart, which the layout summarises
	times workload.StatementTimes
	inTx  bool
	// reads and writes of the page in progress
	reads, writes int32
	committed     counts
}

func (w *Workload) NewWorker(ctx context.Context, conn *sql.Conn, d dialect.Dialect, ds workload.Dataset, client int) (workload.Worker, error) {
	wd, err := w.world(ds)
	if err != nil {
		return nil, err
	}
	seed := uint64(time.Now().UnixNano()) ^ uint64(client)<<32
	return &worker{w: w, wd: wd, d: d, conn: conn, rng: rand.New(rand.NewPCG(seed, uint64(ds.Seed)))}, nil
}

// Do renders one page: the next of the list as siege walks urls.txt, or
// one drawn by its hits (order=random, siege -i).
func (wk *worker) Do(ctx context.Context) (workload.Outcome, error) {
	var p *page
	if wk.w.opt.Random {
		n := wk.rng.IntN(wk.wd.totalHits)
		for i := range wk.wd.pages {
			if n -= wk.wd.pages[i].Weight; n < 0 {
				p = &wk.wd.pages[i]
				break
			}
		}
	} else {
		p = &wk.wd.pages[wk.next%len(wk.wd.pages)]
	}
	wk.reads, wk.writes = 0, 0
	if err := wk.render(ctx, p); err != nil {
		return workload.Outcome{Op: 0, Reads: wk.reads, Writes: wk.writes}, fmt.Errorf("page %s: %w", p.Name, err)
	}
	// a failed page is retried as it stood: siege moves on only after an
	// answer
	wk.next++
	wk.committed.pages++
	return workload.Outcome{Op: 0, Reads: wk.reads, Writes: wk.writes}, nil
}

func (wk *worker) Abort(ctx context.Context) {
	if wk.inTx {
		wk.conn.ExecContext(ctx, "ROLLBACK")
		wk.inTx = false
	}
}

func (wk *worker) Counters() map[string]int64 {
	c := wk.committed
	return map[string]int64{"pages": c.pages, "carts": c.carts, "cart_items": c.cartItems, "orders": c.orders,
		"order_items": c.orderItems, "qty_sold": c.qty, "out_of_stock": c.outOfStock, "checked_counts": c.checkedCounts,
		workload.LogicalBytes: c.logicalBytes}
}

func (wk *worker) Statements() []workload.StatementStat { return wk.times.Stats() }

func (wk *worker) Close() error { return wk.conn.Close() }

// query sends a read and reads every row, as a page template does; it
// returns the rows and the first column of each (ids, counts).
func (wk *worker) query(ctx context.Context, name, q string, args ...any) (rows int, first []string, err error) {
	q = wk.d.Bind(q)
	st := wk.times.Of(name, q)
	start := time.Now()
	rs, err := wk.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return 0, nil, err
	}
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return rows, first, fmt.Errorf("%s: %w", name, err)
		}
		rows++
		first = append(first, string(raw[0]))
	}
	if err := rs.Err(); err != nil {
		return rows, first, fmt.Errorf("%s: %w", name, err)
	}
	st.Record(start)
	wk.reads++
	return rows, first, nil
}

func (wk *worker) exec(ctx context.Context, name, q string, args ...any) (int64, error) {
	q = wk.d.Bind(q)
	st := wk.times.Of(name, q)
	start := time.Now()
	r, err := wk.conn.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	st.Record(start)
	wk.writes++
	return r.RowsAffected()
}

// insert adds a row and returns its id.
func (wk *worker) insert(ctx context.Context, name, q string, args ...any) (int64, error) {
	q = wk.d.Bind(q + wk.d.Returning())
	st := wk.times.Of(name, q)
	start := time.Now()
	var id int64
	if wk.d.Flavor == dialect.Postgres {
		if err := wk.conn.QueryRowContext(ctx, q, args...).Scan(&id); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		r, err := wk.conn.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		if id, err = r.LastInsertId(); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
	}
	st.Record(start)
	wk.writes++
	return id, nil
}

// expect checks a count the generator knows: a page that read other rows
// than the data holds fails the cell's invariants.
func (wk *worker) expect(p *page, what string, got []string, want int) {
	if want < 0 {
		return
	}
	n := -1
	if len(got) == 1 {
		n, _ = strconv.Atoi(got[0])
	}
	wk.committed.checkedCounts++
	if n != want {
		wk.w.wrong(fmt.Sprintf("page %s: %s found %d rows, the data holds %d", p.Name, what, n, want))
	}
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func ints(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func idsOf(first []string) []any {
	var out []any
	for _, s := range first {
		if id, err := strconv.Atoi(s); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// listColumns are a listing's: the card of each product, its unit and
// currency, and its first image.
const listColumns = `p.id, p.name, p.slug, p.price, p.old_price, p.stock, p.rating, p.votes, p.is_new, p.is_hit, p.is_sale,
  m.name, c.code, c.rate, u.name,
  (SELECT i.path FROM product_images i WHERE i.product_id = p.id ORDER BY i.sort LIMIT 1)`

const listJoins = ` JOIN manufacturers m ON m.id = p.manufacturer_id JOIN currencies c ON c.id = p.currency_id JOIN units u ON u.id = p.unit_id`

func (wk *worker) layout(ctx context.Context) error {
	steps := []struct{ name, q string }{
		{"layout.currencies", "SELECT id, code, rate FROM currencies ORDER BY id"},
		{"layout.menu", "SELECT id, parent_id, name, slug FROM product_groups WHERE is_active = TRUE ORDER BY parent_id, sort, id"},
		{"layout.brands", "SELECT id, name FROM manufacturers ORDER BY sort, id LIMIT 20"},
		{"layout.banner", "SELECT id, name, banner, discount_pct FROM promotions WHERE is_active = TRUE ORDER BY id"},
	}
	for _, s := range steps {
		if _, _, err := wk.query(ctx, s.name, s.q); err != nil {
			return err
		}
	}
	_, _, err := wk.query(ctx, "layout.cart", "SELECT COUNT(*), COALESCE(SUM(qty * price), 0) FROM cart_items WHERE cart_id = ?", wk.cart)
	return err
}

// listing renders a product list: its count (for the pager), the page of
// products, their flags and promotions, and the facets when asked.
func (wk *worker) listing(ctx context.Context, p *page, kind, from, where string, args []any, facetWhere string, facetArgs []any) error {
	sortBy := sorts[p.sortBy]
	if sortBy == "" {
		sortBy = sorts["popular"]
	}
	_, got, err := wk.query(ctx, kind+".count", "SELECT COUNT(*) FROM products p"+from+" WHERE "+where, args...)
	if err != nil {
		return err
	}
	wk.expect(p, "the count", got, p.count)
	_, ids, err := wk.query(ctx, kind+".list", "SELECT "+listColumns+" FROM products p"+listJoins+from+" WHERE "+where+
		" ORDER BY "+sortBy+fmt.Sprintf(" LIMIT %d OFFSET %d", pageSize, p.offset), args...)
	if err != nil {
		return err
	}
	if err := wk.badges(ctx, kind, idsOf(ids)); err != nil {
		return err
	}
	if facetWhere == "" {
		return nil
	}
	facets := []struct{ name, q string }{
		{".facet_brands", "SELECT m.id, m.name, COUNT(*) FROM products p JOIN manufacturers m ON m.id = p.manufacturer_id WHERE " + facetWhere + " GROUP BY m.id, m.name ORDER BY m.name"},
		{".facet_price", "SELECT MIN(p.price), MAX(p.price) FROM products p WHERE " + facetWhere},
		{".facet_attr", "SELECT p.attr_002, COUNT(*) FROM products p WHERE " + facetWhere + " AND p.attr_002 IS NOT NULL GROUP BY p.attr_002 ORDER BY p.attr_002"},
	}
	for _, f := range facets {
		if _, _, err := wk.query(ctx, kind+f.name, f.q, facetArgs...); err != nil {
			return err
		}
	}
	return nil
}

// badges are the flags and promotions shown on the listed products.
func (wk *worker) badges(ctx context.Context, kind string, ids []any) error {
	if len(ids) == 0 {
		return nil
	}
	if _, _, err := wk.query(ctx, kind+".flags", "SELECT pf.product_id, f.name, f.icon FROM product_flags pf JOIN special_flags f ON f.id = pf.flag_id WHERE pf.product_id IN ("+marks(len(ids))+")", ids...); err != nil {
		return err
	}
	_, _, err := wk.query(ctx, kind+".promotions", "SELECT pp.product_id, pr.discount_pct, pr.name FROM product_promotions pp JOIN promotions pr ON pr.id = pp.promotion_id WHERE pr.is_active = TRUE AND pp.product_id IN ("+marks(len(ids))+")", ids...)
	return err
}

func (wk *worker) render(ctx context.Context, p *page) error {
	if p.Kind != "checkout" {
		if err := wk.layout(ctx); err != nil {
			return err
		}
	}
	switch p.Kind {
	case "home":
		return wk.home(ctx)
	case "category", "top-category", "brand", "promotion", "collection":
		return wk.browse(ctx, p)
	case "sale", "hits", "new", "search", "sku", "search-text":
		return wk.found(ctx, p)
	case "product":
		return wk.productCard(ctx, p)
	case "compare", "reviews", "brands", "catalogue", "cart":
		return wk.otherPage(ctx, p)
	case "checkout":
		return wk.checkout(ctx)
	}
	return fmt.Errorf("no page type %q", p.Kind)
}

// activeOnly keeps a listing to the products on sale.
const activeOnly = "p.is_active = TRUE"

// home is the front page: new, hit and sale products with their badges,
// the top categories and the latest reviews.
func (wk *worker) home(ctx context.Context) error {
	for _, l := range []struct{ name, where, order string }{
		{"home.new", "p.is_new = TRUE", "p.created_at DESC, p.id"},
		{"home.hits", "p.is_hit = TRUE", "p.views DESC, p.id"},
		{"home.sale", "p.is_sale = TRUE", "p.views DESC, p.id"},
	} {
		_, ids, err := wk.query(ctx, l.name, "SELECT "+listColumns+" FROM products p"+listJoins+" WHERE "+activeOnly+" AND "+l.where+" ORDER BY "+l.order+" LIMIT 12")
		if err != nil {
			return err
		}
		if err := wk.badges(ctx, l.name, idsOf(ids)); err != nil {
			return err
		}
	}
	if _, _, err := wk.query(ctx, "home.groups", `SELECT g.id, g.name, COUNT(p.id) FROM product_groups g JOIN product_groups s ON s.parent_id = g.id
  LEFT JOIN products p ON p.group_id = s.id AND p.is_active = TRUE WHERE g.parent_id = 0 GROUP BY g.id, g.name, g.sort ORDER BY g.sort, g.id`); err != nil {
		return err
	}
	_, _, err := wk.query(ctx, "home.reviews", `SELECT r.author, r.rating, r.body, p.id, p.name FROM reviews r JOIN products p ON p.id = r.product_id
  WHERE r.is_published = TRUE ORDER BY r.created_at DESC, r.id LIMIT 5`)
	return err
}

// browse is a page of one category, top category, brand, promotion or
// collection: what it is, then its products.
func (wk *worker) browse(ctx context.Context, p *page) error {
	switch p.Kind {
	case "category":
		if _, _, err := wk.query(ctx, "category.group", "SELECT id, parent_id, name, slug, description FROM product_groups WHERE id = ?", p.group); err != nil {
			return err
		}
		if _, _, err := wk.query(ctx, "category.parent", "SELECT g.id, g.name, g.slug FROM product_groups g JOIN product_groups s ON s.parent_id = g.id WHERE s.id = ?", p.group); err != nil {
			return err
		}
		where, args := "p.group_id = ? AND "+activeOnly, []any{p.group}
		base, baseArgs := where, append([]any(nil), args...)
		if f := p.filter; f.manufacturer != 0 {
			where, args = where+" AND p.manufacturer_id = ?", append(args, f.manufacturer)
		}
		if f := p.filter; f.price > 0 {
			where, args = where+" AND p.price BETWEEN ? AND ?", append(args, f.priceLo, f.price)
		}
		if f := p.filter; f.attr002 != "" {
			where, args = where+" AND p.attr_002 = ?", append(args, f.attr002)
		}
		return wk.listing(ctx, p, "category", "", where, args, base, baseArgs)
	case "top-category":
		if _, _, err := wk.query(ctx, "top.group", "SELECT id, parent_id, name, slug, description FROM product_groups WHERE id = ?", p.parent); err != nil {
			return err
		}
		if _, _, err := wk.query(ctx, "top.subgroups", `SELECT g.id, g.name, COUNT(p.id) FROM product_groups g LEFT JOIN products p ON p.group_id = g.id AND p.is_active = TRUE
  WHERE g.parent_id = ? GROUP BY g.id, g.name ORDER BY g.name`, p.parent); err != nil {
			return err
		}
		where := "p.group_id IN (SELECT id FROM product_groups WHERE parent_id = ?) AND " + activeOnly
		return wk.listing(ctx, p, "top", "", where, []any{p.parent}, where, []any{p.parent})
	case "brand":
		if _, _, err := wk.query(ctx, "brand.manufacturer", "SELECT id, name, country, url, logo, description FROM manufacturers WHERE id = ?", p.manufacturer); err != nil {
			return err
		}
		if _, _, err := wk.query(ctx, "brand.collections", "SELECT id, name FROM collections WHERE manufacturer_id = ? ORDER BY name", p.manufacturer); err != nil {
			return err
		}
		where := "p.manufacturer_id = ? AND " + activeOnly
		return wk.listing(ctx, p, "brand", "", where, []any{p.manufacturer}, where, []any{p.manufacturer})
	case "promotion":
		if _, _, err := wk.query(ctx, "promotion.promotion", "SELECT id, name, discount_pct, starts, ends, banner FROM promotions WHERE id = ?", p.promotion); err != nil {
			return err
		}
		return wk.listing(ctx, p, "promotion", " JOIN product_promotions pp ON pp.product_id = p.id", "pp.promotion_id = ? AND "+activeOnly, []any{p.promotion}, "", nil)
	case "collection":
		if _, _, err := wk.query(ctx, "collection.collection", "SELECT c.id, c.name, c.description, m.name FROM collections c JOIN manufacturers m ON m.id = c.manufacturer_id WHERE c.id = ?", p.collection); err != nil {
			return err
		}
		return wk.listing(ctx, p, "collection", "", "p.collection_id = ? AND "+activeOnly, []any{p.collection}, "", nil)
	}
	return fmt.Errorf("no page type %q", p.Kind)
}

// found is a listing of what a flag or a search finds.
func (wk *worker) found(ctx context.Context, p *page) error {
	switch p.Kind {
	case "sale", "hits":
		col := map[string]string{"sale": "p.is_sale", "hits": "p.is_hit"}[p.Kind]
		return wk.listing(ctx, p, p.Kind, "", col+" = TRUE AND "+activeOnly, nil, "", nil)
	case "new":
		if p.parent != 0 {
			return wk.listing(ctx, p, "new", "", "p.is_new = TRUE AND p.group_id IN (SELECT id FROM product_groups WHERE parent_id = ?) AND "+activeOnly, []any{p.parent}, "", nil)
		}
		return wk.listing(ctx, p, "new", "", "p.is_new = TRUE AND "+activeOnly, nil, "", nil)
	case "search":
		where, args := activeOnly, []any{}
		for _, w := range strings.Fields(p.term) {
			where, args = where+" AND LOWER(p.name) LIKE ?", append(args, "%"+w+"%")
		}
		return wk.listing(ctx, p, "search", "", where, args, "", nil)
	case "sku":
		return wk.listing(ctx, p, "sku", "", "p.sku LIKE ? AND "+activeOnly, []any{p.term + "%"}, "", nil)
	case "search-text":
		where, args := activeOnly, []any{}
		for _, w := range strings.Fields(p.term) {
			where, args = where+" AND p.description LIKE ?", append(args, "%"+w+"%")
		}
		return wk.listing(ctx, p, "search_text", "", where, args, "", nil)
	}
	return fmt.Errorf("no page type %q", p.Kind)
}

// otherPage is a page that is not a listing: the comparison, a product's
// reviews, every brand, the catalogue, the cart.
func (wk *worker) otherPage(ctx context.Context, p *page) error {
	switch p.Kind {
	case "compare":
		_, got, err := wk.query(ctx, "compare.products", "SELECT p.*, m.name, u.name FROM products p JOIN manufacturers m ON m.id = p.manufacturer_id JOIN units u ON u.id = p.unit_id WHERE p.id IN ("+marks(len(p.products))+") AND "+activeOnly+" ORDER BY p.id", ints(p.products)...)
		if err != nil {
			return err
		}
		wk.expect(p, "the compared products", []string{strconv.Itoa(len(got))}, p.count)
		return wk.badges(ctx, "compare", ints(p.products))
	case "reviews":
		id := p.products[0]
		if _, _, err := wk.query(ctx, "reviews.product", "SELECT id, name, slug, price, rating, votes FROM products WHERE id = ?", id); err != nil {
			return err
		}
		if _, _, err := wk.query(ctx, "reviews.all", "SELECT author, rating, body, created_at FROM reviews WHERE product_id = ? AND is_published = TRUE ORDER BY created_at DESC, id", id); err != nil {
			return err
		}
		_, _, err := wk.query(ctx, "reviews.rating", "SELECT COUNT(*), AVG(rating) FROM reviews WHERE product_id = ? AND is_published = TRUE", id)
		return err
	case "brands":
		_, _, err := wk.query(ctx, "brands.all", `SELECT m.id, m.name, m.logo, COUNT(p.id) FROM manufacturers m LEFT JOIN products p ON p.manufacturer_id = m.id AND p.is_active = TRUE
  GROUP BY m.id, m.name, m.logo ORDER BY m.name`)
		return err
	case "catalogue":
		_, _, err := wk.query(ctx, "catalogue.groups", `SELECT g.id, g.parent_id, g.name, COUNT(p.id) FROM product_groups g LEFT JOIN products p ON p.group_id = g.id AND p.is_active = TRUE
  GROUP BY g.id, g.parent_id, g.name ORDER BY g.parent_id, g.name`)
		return err
	case "cart":
		_, _, err := wk.query(ctx, "cart.items", "SELECT ci.id, ci.qty, ci.price, p.name, p.sku, p.stock FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = ? ORDER BY ci.id", wk.cart)
		return err
	}
	return fmt.Errorf("no page type %q", p.Kind)
}

// productCard is the product's page: the product with its ten lookups,
// images, badges, reviews and rating, related products of its group and
// of its collection.
func (wk *worker) productCard(ctx context.Context, p *page) error {
	id := p.products[0]
	_, got, err := wk.query(ctx, "product.card", `SELECT p.*, m.name, m.country, m.logo, g.name, g.slug, pg.name, pg.slug, c.code, c.rate, u.name, col.name
  FROM products p JOIN manufacturers m ON m.id = p.manufacturer_id JOIN product_groups g ON g.id = p.group_id
  LEFT JOIN product_groups pg ON pg.id = g.parent_id JOIN currencies c ON c.id = p.currency_id JOIN units u ON u.id = p.unit_id
  LEFT JOIN collections col ON col.id = p.collection_id WHERE p.id = ? AND p.is_active = TRUE`, id)
	if err != nil {
		return err
	}
	wk.expect(p, "the product", []string{strconv.Itoa(len(got))}, 1)
	head := wk.wd.products[id-1]
	steps := []struct {
		name, q string
		args    []any
	}{
		{"product.images", "SELECT path, alt FROM product_images WHERE product_id = ? ORDER BY sort", []any{id}},
		{"product.flags", "SELECT f.name, f.icon FROM product_flags pf JOIN special_flags f ON f.id = pf.flag_id WHERE pf.product_id = ?", []any{id}},
		{"product.promotions", "SELECT pr.id, pr.name, pr.discount_pct FROM product_promotions pp JOIN promotions pr ON pr.id = pp.promotion_id WHERE pp.product_id = ? AND pr.is_active = TRUE", []any{id}},
		{"product.reviews", "SELECT author, rating, body, created_at FROM reviews WHERE product_id = ? AND is_published = TRUE ORDER BY created_at DESC, id LIMIT 10", []any{id}},
		{"product.rating", "SELECT COUNT(*), AVG(rating) FROM reviews WHERE product_id = ? AND is_published = TRUE", []any{id}},
		{"product.related", "SELECT " + listColumns + " FROM products p" + listJoins + " WHERE p.group_id = ? AND p.id <> ? AND p.is_active = TRUE ORDER BY p.views DESC, p.id LIMIT 8", []any{head.group, id}},
	}
	if head.collection != 0 {
		steps = append(steps, struct {
			name, q string
			args    []any
		}{"product.collection", "SELECT p.id, p.name, p.price, p.old_price FROM products p WHERE p.collection_id = ? AND p.id <> ? AND p.is_active = TRUE ORDER BY p.id LIMIT 8", []any{head.collection, id}})
	}
	for _, s := range steps {
		if _, _, err := wk.query(ctx, s.name, s.q, s.args...); err != nil {
			return err
		}
	}
	return nil
}

// lostInsert notes an insert that commits by itself and whose answer was
// lost with the connection: its row may be there or not.
func (wk *worker) lostInsert(err error, table string) {
	if dialect.Classify(err) == dialect.ClassConnectionLost {
		wk.w.addLostInsert(table)
	}
}

// checkout puts two products in a new cart and orders them: the cart rows
// as the shop writes them on "add to cart" (each its own statement), then
// the order, its items and the stock in one transaction.
func (wk *worker) checkout(ctx context.Context) error {
	now := time.Now().UTC().Truncate(time.Second)
	buy := []int{wk.wd.checkoutOf[wk.rng.IntN(len(wk.wd.checkoutOf))], wk.wd.checkoutOf[wk.rng.IntN(len(wk.wd.checkoutOf))]}
	if buy[0] == buy[1] {
		buy = buy[:1]
	}
	cart, err := wk.insert(ctx, "checkout.cart", "INSERT INTO carts (session, created_at) VALUES (?, ?)", fmt.Sprintf("s%016x", wk.rng.Uint64()), now)
	if err != nil {
		wk.lostInsert(err, "carts")
		return err
	}
	wk.committed.carts++
	wk.cart = cart
	var total float64
	prices := map[int]float64{}
	for _, id := range buy {
		price := wk.wd.products[id-1].price
		prices[id] = price
		total += price
		if _, _, err := wk.query(ctx, "checkout.product", "SELECT price, stock FROM products WHERE id = ?", id); err != nil {
			return err
		}
		if _, err := wk.insert(ctx, "checkout.add", "INSERT INTO cart_items (cart_id, product_id, qty, price, added_at) VALUES (?, ?, 1, ?, ?)", cart, id, price, now); err != nil {
			wk.lostInsert(err, "cart_items")
			return err
		}
		wk.committed.cartItems++
	}
	if _, _, err := wk.query(ctx, "checkout.items", "SELECT ci.id, ci.qty, ci.price, p.name, p.sku, p.stock FROM cart_items ci JOIN products p ON p.id = ci.product_id WHERE ci.cart_id = ? ORDER BY ci.id", cart); err != nil {
		return err
	}
	if _, err := wk.conn.ExecContext(ctx, wk.d.Begin(true)); err != nil {
		return fmt.Errorf("checkout: begin: %w", err)
	}
	wk.inTx = true
	var pending counts
	for _, id := range buy {
		n, err := wk.exec(ctx, "checkout.stock", "UPDATE products SET stock = stock - 1, reserved = reserved + 1 WHERE id = ? AND stock >= 1", id)
		if err != nil {
			return err
		}
		if n != 1 {
			pending.outOfStock++
			wk.Abort(ctx)
			wk.committed.outOfStock += pending.outOfStock
			return nil
		}
	}
	order, err := wk.insert(ctx, "checkout.order", "INSERT INTO orders (cart_id, customer, email, phone, address, total, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)",
		cart, "customer", "customer@example.com", "+70000000000", "1 Example street", total, now)
	if err != nil {
		return err
	}
	pending.orders++
	for _, id := range buy {
		if _, err := wk.insert(ctx, "checkout.order_item", "INSERT INTO order_items (order_id, product_id, qty, price) VALUES (?, ?, 1, ?)", order, id, prices[id]); err != nil {
			return err
		}
		pending.orderItems++
		pending.qty++
	}
	if _, err := wk.conn.ExecContext(ctx, "COMMIT"); err != nil {
		if dialect.Classify(err) == dialect.ClassConnectionLost {
			// the server may have committed before the session went:
			// Check looks for the order of this cart
			wk.w.addLostCheckout(lostCheckout{cart: cart, pending: pending})
		}
		return fmt.Errorf("checkout: commit: %w", err)
	}
	wk.inTx = false
	wk.committed.orders += pending.orders
	wk.committed.orderItems += pending.orderItems
	wk.committed.qty += pending.qty
	wk.committed.logicalBytes += 200 * (pending.orders + pending.orderItems)
	return nil
}
