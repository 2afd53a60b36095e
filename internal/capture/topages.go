package capture

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// requestGap is the idle time that ends a request: statements of a
// session less than this apart (from one's end to the next's start) are
// sent by one request, as an application page's are; a transaction is
// never split.
const requestGap = 50_000_000 // ns

// variants is how many captured instances of a kind of request become
// pages, so their parameters are the captured ones, by frequency.
const variants = 10

// PagesOptions turn a capture into the pages file of --queries.
type PagesOptions struct {
	From, Out string
	Log       io.Writer
}

type request struct {
	texts, prints []string
}

type pageKind struct {
	prints    []string
	instances []request
}

type pagesYAML struct {
	Pages []pageYAML `yaml:"pages"`
}

type pageYAML struct {
	Name       string   `yaml:"name"`
	Weight     int      `yaml:"weight"`
	Statements []string `yaml:"statements"`
}

// ToPages groups a capture's statements into requests, requests into
// kinds by their fingerprints, and writes each kind's captured instances
// (up to variants, spread over the capture) as pages weighted by how
// often the kind was sent. Only MariaDB/MySQL captures: --queries runs
// on MariaDB.
func ToPages(o PagesOptions) error {
	h, lines, err := Read(o.From)
	if err != nil {
		return err
	}
	if h.Protocol != ProtoMySQL {
		return badInput("%s: a %s capture; the pages of --queries run on MariaDB, so --to-pages takes mysql captures", o.From, h.Protocol)
	}
	reqs, left := requests(lines, h.Timing == TimingSecond)
	if len(reqs) == 0 {
		return badInput("%s: no statement that answered without an error to make a page of", o.From)
	}
	kinds := kindsOf(reqs)
	var py pagesYAML
	for i, k := range kinds {
		py.Pages = append(py.Pages, kindPages(i+1, k)...)
	}
	b, err := yaml.Marshal(py)
	if err != nil {
		return err
	}
	head := fmt.Sprintf("# shootout capture --to-pages %s: %d requests of %d kinds, up to %d captured instances of each;\n"+
		"# %d statements left out (errors, unanswered, prepares, closes, SET, USE, pings, text with braces)\n",
		filepath.Base(o.From), len(reqs), len(kinds), variants, left)
	f, err := os.OpenFile(o.Out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return badInput("--out: %w (a pages file is never overwritten)", err)
	}
	if _, err := f.Write(append([]byte(head), b...)); err != nil {
		f.Close()
		return err
	}
	if o.Log != nil {
		fmt.Fprintf(o.Log, "capture: %d pages of %d kinds of request in %s\n", len(py.Pages), len(kinds), o.Out)
	}
	return f.Close()
}

// pageStatement is a command as a page sends it: a text, an execute with
// its parameters written in; false for what a page does not send.
func pageStatement(c *Command) (string, bool) {
	if c.Error != nil || c.Unanswered || strings.Contains(c.Text, "{") {
		return "", false
	}
	switch c.Kind {
	case KindQuery, KindBegin, KindCommit, KindRollback:
		return c.Text, true
	case KindExecute:
		return inline(c.Text, c.Params)
	}
	return "", false
}

// requests splits each session's statements at idle gaps and at
// transactions' ends.
func requests(lines []Line, coarse bool) ([]request, int) {
	bySession := map[int64][]*Command{}
	var order []int64
	for _, l := range lines {
		if c := l.Command; c != nil {
			if bySession[c.Session] == nil {
				order = append(order, c.Session)
			}
			bySession[c.Session] = append(bySession[c.Session], c)
		}
	}
	var reqs []request
	left := 0
	for _, s := range order {
		cs := bySession[s]
		slices.SortFunc(cs, func(a, b *Command) int { return int(a.Seq - b.Seq) })
		var cur request
		inTx := false
		var prevEnd int64
		flush := func() {
			if len(cur.texts) > 0 {
				reqs = append(reqs, cur)
			}
			cur = request{}
		}
		for _, c := range cs {
			text, ok := pageStatement(c)
			if !ok {
				left++
				continue
			}
			if !inTx && (coarse || c.StartNs-prevEnd > requestGap) {
				flush()
			}
			cur.texts = append(cur.texts, text)
			cur.prints = append(cur.prints, Fingerprint(ProtoMySQL, c.Text))
			prevEnd = max(c.EndNs, c.StartNs)
			switch c.Kind {
			case KindBegin:
				inTx = true
			case KindCommit, KindRollback:
				inTx = false
				flush()
			}
		}
		flush()
	}
	return reqs, left
}

// kindsOf groups requests by their statements' fingerprints, the most
// frequent first.
func kindsOf(reqs []request) []*pageKind {
	byKey := map[string]*pageKind{}
	var kinds []*pageKind
	for _, r := range reqs {
		key := strings.Join(r.prints, "\n")
		k := byKey[key]
		if k == nil {
			k = &pageKind{prints: r.prints}
			byKey[key] = k
			kinds = append(kinds, k)
		}
		k.instances = append(k.instances, r)
	}
	slices.SortStableFunc(kinds, func(a, b *pageKind) int { return len(b.instances) - len(a.instances) })
	return kinds
}

// kindPages are up to variants instances spread over the capture, their
// weights sharing the kind's count.
func kindPages(n int, k *pageKind) []pageYAML {
	total := len(k.instances)
	v := min(total, variants)
	name := clip(k.prints[0], 60)
	if len(k.prints) > 1 {
		name += fmt.Sprintf(" +%d", len(k.prints)-1)
	}
	var ps []pageYAML
	for i := range v {
		w := total / v
		if i < total%v {
			w++
		}
		r := k.instances[i*total/v]
		ps = append(ps, pageYAML{Name: fmt.Sprintf("%d.%d %s", n, i+1, name), Weight: w, Statements: r.texts})
	}
	return ps
}

// inline writes an execute's parameters into its text as MariaDB
// literals, in place of the ? outside quotes and comments.
func inline(text string, params []any) (string, bool) {
	var b strings.Builder
	var quote byte
	n := 0
	for i := 0; i < len(text); i++ {
		ch := text[i]
		switch {
		case quote != 0:
			if ch == '\\' && quote != '`' && i+1 < len(text) {
				b.WriteByte(ch)
				i++
				ch = text[i]
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '?':
			if n == len(params) {
				return "", false
			}
			lit, ok := literal(params[n])
			if !ok {
				return "", false
			}
			b.WriteString(lit)
			n++
			continue
		}
		b.WriteByte(ch)
	}
	return b.String(), n == len(params)
}

var mysqlEscape = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`, "\n", `\n`, "\r", `\r`, "\x1a", `\Z`)

func literal(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "NULL", true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case string:
		return "'" + mysqlEscape.Replace(x) + "'", true
	case map[string]any:
		if h, ok := x["hex"].(string); ok {
			return "X'" + h + "'", true
		}
	}
	return "", false
}
