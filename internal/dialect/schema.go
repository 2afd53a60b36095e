package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Column is one column of a portable table definition. Type is one of
// int, bigint, str(N), text, longtext, bool, datetime, date, float, money
// (a price: two decimals, exact); Default
// is written as SQL (a number, a quoted string, TRUE or FALSE) or empty.
type Column struct {
	Name    string
	Type    string
	NotNull bool
	Default string
}

// Index is a secondary index of a portable table definition.
type Index struct {
	Name   string
	Cols   []string
	Unique bool
}

// Table is a table written once for every dialect: an integer id primary
// key that the server numbers, then Columns, then Indexes.
type Table struct {
	Name    string
	NoID    bool // a join table without an id column (projects_trackers)
	Columns []Column
	Indexes []Index
}

// ColumnType renders a portable type in the dialect's words. Types follow
// what Rails' adapters create for the same migration on each server, so a
// schema written once reads as the application's own on every target.
func (d Dialect) ColumnType(t string) string {
	var n string
	if strings.HasPrefix(t, "str(") && strings.HasSuffix(t, ")") {
		n, t = t[4:len(t)-1], "str"
	}
	switch d.Flavor {
	case Postgres:
		return map[string]string{"int": "INTEGER", "bigint": "BIGINT", "str": "VARCHAR(" + n + ")", "text": "TEXT",
			"longtext": "TEXT", "bool": "BOOLEAN", "datetime": "TIMESTAMP", "date": "DATE", "float": "DOUBLE PRECISION", "money": "NUMERIC(12,2)"}[t]
	case SQLite:
		return map[string]string{"int": "INTEGER", "bigint": "BIGINT", "str": "VARCHAR(" + n + ")", "text": "TEXT",
			"longtext": "TEXT", "bool": "BOOLEAN", "datetime": "DATETIME", "date": "DATE", "float": "FLOAT", "money": "NUMERIC"}[t]
	default:
		return map[string]string{"int": "INT", "bigint": "BIGINT", "str": "VARCHAR(" + n + ")", "text": "TEXT",
			"longtext": "LONGTEXT", "bool": "TINYINT(1)", "datetime": "DATETIME", "date": "DATE", "float": "DOUBLE", "money": "DECIMAL(12,2)"}[t]
	}
}

// CreateTable renders t without its secondary indexes (see CreateIndexes):
// loading first and indexing after is the fast way on every server.
func (d Dialect) CreateTable(t Table) (string, error) {
	var cols []string
	if !t.NoID {
		switch d.Flavor {
		case Postgres:
			cols = append(cols, "id SERIAL PRIMARY KEY")
		case SQLite:
			cols = append(cols, "id INTEGER PRIMARY KEY NOT NULL")
		default:
			cols = append(cols, "id INT NOT NULL AUTO_INCREMENT PRIMARY KEY")
		}
	}
	for _, c := range t.Columns {
		typ := d.ColumnType(c.Type)
		if typ == "" {
			return "", fmt.Errorf("table %s column %s: unknown portable type %q", t.Name, c.Name, c.Type)
		}
		s := d.columnName(c.Name) + " " + typ
		if c.Default != "" {
			def := c.Default
			if d.Flavor == MySQL && (def == "TRUE" || def == "FALSE") {
				def = map[string]string{"TRUE": "1", "FALSE": "0"}[def]
			}
			s += " DEFAULT " + def
		}
		if c.NotNull {
			s += " NOT NULL"
		}
		cols = append(cols, s)
	}
	if d.indexesInCreate() {
		for _, ix := range t.Indexes {
			u := ""
			if ix.Unique {
				u = "UNIQUE "
			}
			cols = append(cols, fmt.Sprintf("%sKEY %s (%s)", u, ix.Name, strings.Join(ix.Cols, ", ")))
		}
	}
	return fmt.Sprintf("CREATE TABLE %s (\n  %s\n)%s", t.Name, strings.Join(cols, ",\n  "), d.TableOptions()), nil
}

// reserved are column names of the workloads' tables that a server takes
// for a keyword unless quoted (Redmine's custom_fields.regexp on MariaDB).
var reserved = map[string]bool{"regexp": true, "rlike": true, "key": true, "order": true, "group": true}

// columnName quotes a reserved column name as the flavor does; a column
// read as table.column needs no quotes.
func (d Dialect) columnName(name string) string {
	if !reserved[name] {
		return name
	}
	if d.Flavor == MySQL {
		return "`" + name + "`"
	}
	return `"` + name + `"`
}

// indexesInCreate: MyRocks takes a third of a second per ALTER TABLE (it
// flushes and syncs), more than loading a small table with its indexes.
func (d Dialect) indexesInCreate() bool { return d.Flavor == MySQL && d.Engine == "rocksdb" }

// CreateIndexes renders t's secondary indexes. MariaDB gets them in one
// ALTER TABLE: MyRocks syncs its files once per DDL statement, which made
// Redmine's 43 CREATE INDEX take 5 s on 13 k rows.
func (d Dialect) CreateIndexes(t Table) []string {
	if d.indexesInCreate() {
		return nil
	}
	if d.Flavor == MySQL && len(t.Indexes) > 0 {
		var adds []string
		for _, ix := range t.Indexes {
			u := ""
			if ix.Unique {
				u = "UNIQUE "
			}
			adds = append(adds, fmt.Sprintf("ADD %sINDEX %s (%s)", u, ix.Name, strings.Join(ix.Cols, ", ")))
		}
		return []string{fmt.Sprintf("ALTER TABLE %s %s", t.Name, strings.Join(adds, ", "))}
	}
	var out []string
	for _, ix := range t.Indexes {
		u := ""
		if ix.Unique {
			u = "UNIQUE "
		}
		out = append(out, fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", u, ix.Name, t.Name, strings.Join(ix.Cols, ", ")))
	}
	return out
}

// ResetSequence moves an id sequence past ids loaded explicitly, so the
// server's next id does not collide; only PostgreSQL's SERIAL needs it.
func (d Dialect) ResetSequence(table string) []string {
	if d.Flavor != Postgres {
		return nil
	}
	return []string{fmt.Sprintf("SELECT setval('%s_id_seq', (SELECT COALESCE(MAX(id), 1) FROM %s))", table, table)}
}

// Returning is appended to an INSERT whose new id the caller reads: Rails
// does the same (RETURNING on PostgreSQL, the protocol's last insert id on
// MariaDB and SQLite).
func (d Dialect) Returning() string {
	if d.Flavor == Postgres {
		return " RETURNING id"
	}
	return ""
}

// InsertID runs an INSERT prepared with Returning() appended and returns
// the id the server gave the row.
func (d Dialect) InsertID(ctx context.Context, stmt *sql.Stmt, args ...any) (int64, error) {
	if d.Flavor == Postgres {
		var id int64
		err := stmt.QueryRowContext(ctx, args...).Scan(&id)
		return id, err
	}
	r, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// ForUpdate is appended to a SELECT that locks the rows it reads; SQLite
// locks the whole database for a writing transaction and has no such
// clause.
func (d Dialect) ForUpdate() string {
	if d.Flavor == SQLite {
		return ""
	}
	return " FOR UPDATE"
}

// TableBytesQuery returns one number: the bytes the server reports for the
// tables and indexes of the benchmark's database, without its logs.
// MyRocks' figure comes from its SST file properties, so it is exact only
// after a compaction (the runner settles first).
func (d Dialect) TableBytesQuery() string {
	switch d.Flavor {
	case Postgres:
		return `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`
	case SQLite:
		return "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
	default:
		return "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) FROM information_schema.TABLES WHERE table_schema = DATABASE()"
	}
}
