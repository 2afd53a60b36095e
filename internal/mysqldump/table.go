package mysqldump

import (
	"fmt"
	"regexp"
	"strings"
)

// CreateTable is a dump's CREATE TABLE taken apart: what moving the table
// to another engine needs to see and change.
type CreateTable struct {
	Name    string
	Columns []string // each column's definition as written
	Keys    []Key
	Options string // the table options after the closing parenthesis
}

// Key is an index or constraint of a CREATE TABLE.
type Key struct {
	// Kind is PRIMARY, UNIQUE, KEY, FULLTEXT, SPATIAL, FOREIGN or CHECK
	Kind string
	Text string
}

var createHead = regexp.MustCompile("(?is)^CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:TEMPORARY\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(`(?:[^`]|``)+`|[A-Za-z0-9_$.]+)\\s*\\(")

// IsCreateTable says whether a statement creates a table (as opposed to a
// view, a trigger or anything else a dump holds).
func IsCreateTable(text string) bool { return createHead.MatchString(text) }

// ParseCreateTable takes a CREATE TABLE apart; the error says what could
// not be read.
func ParseCreateTable(text string) (*CreateTable, error) {
	m := createHead.FindStringSubmatchIndex(text)
	if m == nil {
		return nil, fmt.Errorf("not a CREATE TABLE with a column list")
	}
	name := strings.ReplaceAll(strings.Trim(text[m[2]:m[3]], "`"), "``", "`")
	body, rest, err := balanced(text[m[1]:])
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	ct := &CreateTable{Name: name, Options: strings.TrimSpace(rest)}
	if strings.HasPrefix(strings.ToUpper(ct.Options), "AS ") || strings.HasPrefix(strings.ToUpper(ct.Options), "SELECT ") {
		return nil, fmt.Errorf("table %s: CREATE TABLE … SELECT is not a dump's", name)
	}
	for _, item := range splitTop(body) {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("table %s: an empty column or key (two commas in a row)", name)
		}
		if kind := keyKind(item); kind != "" {
			ct.Keys = append(ct.Keys, Key{Kind: kind, Text: item})
		} else {
			ct.Columns = append(ct.Columns, item)
		}
	}
	if len(ct.Columns) == 0 {
		return nil, fmt.Errorf("table %s: no columns", name)
	}
	return ct, nil
}

// outsideQuotes calls at with each byte of s that is not inside a quoted
// string or name, and the parenthesis depth around it (counted from
// depth); at returns false to stop there.
func outsideQuotes(s string, depth int, at func(i int, c byte, depth int) bool) {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"', '`':
			quote = c
			continue
		case '(':
			depth++
		case ')':
			depth--
		}
		if !at(i, c, depth) {
			return
		}
	}
}

// balanced reads up to the parenthesis that closes the one already opened
// and returns what was inside and what follows.
func balanced(s string) (inside, rest string, err error) {
	end := -1
	outsideQuotes(s, 1, func(i int, c byte, depth int) bool {
		if c == ')' && depth == 0 {
			end = i
			return false
		}
		return true
	})
	if end < 0 {
		return "", "", fmt.Errorf("the column list's parenthesis is never closed")
	}
	return s[:end], s[end+1:], nil
}

// splitTop splits on the commas outside parentheses and quotes.
func splitTop(s string) []string {
	var out []string
	from := 0
	outsideQuotes(s, 0, func(i int, c byte, depth int) bool {
		if c == ',' && depth == 0 {
			out = append(out, s[from:i])
			from = i + 1
		}
		return true
	})
	return append(out, s[from:])
}

var keyWords = regexp.MustCompile(`(?i)^(?:CONSTRAINT(?:\s+(?:` + "`[^`]*`" + `|\w+))?\s+)?(PRIMARY\s+KEY|UNIQUE|FULLTEXT|SPATIAL|FOREIGN\s+KEY|CHECK|KEY|INDEX)\b`)

func keyKind(item string) string {
	m := keyWords.FindStringSubmatch(item)
	if m == nil {
		return ""
	}
	w := strings.ToUpper(strings.Fields(m[1])[0])
	switch w {
	case "INDEX":
		return "KEY"
	}
	return w
}

// columnName is a column definition's name, unquoted.
func columnName(def string) string {
	def = strings.TrimSpace(def)
	if strings.HasPrefix(def, "`") {
		if end := strings.Index(def[1:], "`"); end >= 0 {
			return def[1 : end+1]
		}
	}
	return strings.Fields(def)[0]
}

var largeType = regexp.MustCompile(`(?i)^\s*(?:` + "`[^`]*`" + `|\S+)\s+(TINYTEXT|MEDIUMTEXT|LONGTEXT|TEXT|TINYBLOB|MEDIUMBLOB|LONGBLOB|BLOB|JSON|GEOMETRY|POINT|LINESTRING|POLYGON)\b`)

var autoIncrement = regexp.MustCompile(`(?i)\bAUTO_INCREMENT\b`)

var droppedOptions = regexp.MustCompile(`(?i)\b(ENGINE|TYPE|ROW_FORMAT|KEY_BLOCK_SIZE|PAGE_CHECKSUM|TRANSACTIONAL|PAGE_COMPRESSED|PAGE_COMPRESSION_LEVEL|ENCRYPTED|ENCRYPTION_KEY_ID|STATS_PERSISTENT|STATS_AUTO_RECALC|STATS_SAMPLE_PAGES|INSERT_METHOD|UNION|DATA DIRECTORY|INDEX DIRECTORY)\s*=?\s*(?:\([^)]*\)|'[^']*'|\S+)`)

// Moved is a table rewritten for an engine: the CREATE TABLE, the keys to
// add once its rows are in (none when they must stay in the CREATE), and
// what was changed for the engine.
type Moved struct {
	Create     string
	AddKeys    string // "ALTER TABLE … ADD …" or ""
	Notes      []string
	Table      string
	HasAutoInc bool
}

// engineLimits is what each engine cannot hold.
var engineLimits = map[string]struct {
	noFulltext, noSpatial, noForeign, noLarge bool
	why                                       string
}{
	"innodb":  {},
	"myisam":  {noForeign: true, why: "MyISAM"},
	"aria":    {noForeign: true, why: "Aria"},
	"rocksdb": {noFulltext: true, noSpatial: true, noForeign: true, why: "MyRocks"},
	"memory":  {noFulltext: true, noSpatial: true, noForeign: true, noLarge: true, why: "MEMORY"},
}

// MoveTo rewrites the table for engine (innodb, myisam, aria, rocksdb,
// memory) with engineOptions after ENGINE= (Aria's TRANSACTIONAL=0):
// the dump's engine and engine-specific options replaced; what the engine
// cannot have (foreign keys, FULLTEXT or SPATIAL indexes) dropped with a
// note; a table it cannot hold at all (TEXT or BLOB in MEMORY) refused
// with the table and the reason. deferKeys moves the secondary keys to
// after the load where the table allows it.
func (ct *CreateTable) MoveTo(engine, engineOptions string, deferKeys bool) (Moved, error) {
	lim, ok := engineLimits[engine]
	if !ok {
		return Moved{}, fmt.Errorf("no rule for engine %q", engine)
	}
	mv := Moved{Table: ct.Name}
	var autoInc string
	for _, c := range ct.Columns {
		if lim.noLarge {
			if m := largeType.FindStringSubmatch(c); m != nil {
				return Moved{}, fmt.Errorf("table %s: %s cannot hold column %s (%s)", ct.Name, lim.why, columnName(c), strings.ToUpper(m[1]))
			}
		}
		if autoIncrement.MatchString(c) {
			autoInc = columnName(c)
			mv.HasAutoInc = true
		}
	}
	var inline, later []string
	for _, k := range ct.Keys {
		switch {
		case k.Kind == "FOREIGN" && lim.noForeign:
			mv.Notes = append(mv.Notes, fmt.Sprintf("table %s: foreign key dropped (%s has none): %s", ct.Name, lim.why, oneLine(k.Text)))
			continue
		case k.Kind == "FULLTEXT" && lim.noFulltext, k.Kind == "SPATIAL" && lim.noSpatial:
			mv.Notes = append(mv.Notes, fmt.Sprintf("table %s: %s index dropped (%s has none): %s", ct.Name, k.Kind, lim.why, oneLine(k.Text)))
			continue
		}
		secondary := k.Kind == "UNIQUE" || k.Kind == "KEY" || k.Kind == "FULLTEXT" || k.Kind == "SPATIAL"
		// an AUTO_INCREMENT column must be the first of some key from
		// the start; MyRocks builds keys in the CREATE faster than after
		if secondary && deferKeys && engine != "rocksdb" && !(autoInc != "" && leadsWith(k.Text, autoInc)) {
			later = append(later, k.Text)
		} else {
			inline = append(inline, k.Text)
		}
	}
	opts := strings.TrimSpace(droppedOptions.ReplaceAllString(ct.Options, ""))
	opts = strings.Join(strings.Fields(opts), " ")
	engineClause := "ENGINE=" + engine
	if engineOptions != "" {
		engineClause += " " + engineOptions
	}
	items := append(append([]string(nil), ct.Columns...), inline...)
	mv.Create = fmt.Sprintf("CREATE TABLE %s (\n  %s\n) %s %s", quoteName(ct.Name), strings.Join(items, ",\n  "), engineClause, opts)
	mv.Create = strings.TrimSpace(mv.Create)
	if len(later) > 0 {
		adds := make([]string, len(later))
		for i, k := range later {
			adds[i] = "ADD " + k
		}
		mv.AddKeys = fmt.Sprintf("ALTER TABLE %s %s", quoteName(ct.Name), strings.Join(adds, ", "))
	}
	return mv, nil
}

func leadsWith(key, col string) bool {
	open := strings.Index(key, "(")
	if open < 0 {
		return false
	}
	first := strings.TrimSpace(strings.SplitN(key[open+1:], ",", 2)[0])
	first = strings.TrimSuffix(strings.Trim(strings.Fields(strings.TrimSuffix(first, ")"))[0], "`"), ")")
	return strings.EqualFold(strings.Trim(first, "`"), col)
}

func quoteName(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
