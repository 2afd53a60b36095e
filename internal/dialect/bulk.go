package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BulkInsert writes rows into table by the fastest plain path each server
// offers: one multi-row INSERT on MariaDB, COPY on PostgreSQL, a prepared
// INSERT inside one transaction on SQLite. Values may be int, int64,
// float64, string, []byte, bool, time.Time or nil.
func (d Dialect) BulkInsert(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	switch d.Flavor {
	case Postgres:
		return conn.Raw(func(dc any) error {
			pc, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("postgres bulk insert needs a pgx connection, got %T", dc)
			}
			_, err := pc.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
			return err
		})
	case SQLite:
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		marks := strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",")
		stmt, err := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(cols, ","), marks))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, r...); err != nil {
				return err
			}
		}
		return tx.Commit()
	default:
		var b strings.Builder
		b.Grow(len(rows) * 64 * len(cols))
		fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", table, strings.Join(cols, ","))
		for i, r := range rows {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			for j, v := range r {
				if j > 0 {
					b.WriteByte(',')
				}
				if err := writeMySQLLiteral(&b, v); err != nil {
					return fmt.Errorf("%s.%s: %w", table, cols[j], err)
				}
			}
			b.WriteByte(')')
		}
		_, err := conn.ExecContext(ctx, b.String())
		return err
	}
}

// writeMySQLLiteral renders one value as a MariaDB literal. Strings are
// escaped for the server's default (NO_BACKSLASH_ESCAPES off) mode.
func writeMySQLLiteral(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("NULL")
	case int:
		b.WriteString(strconv.Itoa(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		if x {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	case string:
		writeMySQLString(b, x)
	case []byte:
		writeMySQLString(b, string(x))
	case time.Time:
		b.WriteByte('\'')
		b.WriteString(x.UTC().Format("2006-01-02 15:04:05.999999"))
		b.WriteByte('\'')
	default:
		return fmt.Errorf("cannot write %T as a literal", v)
	}
	return nil
}

func writeMySQLString(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '"':
			b.WriteString(`\"`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
}

// ForceIndex returns the clause that makes a full read go through the named
// index, or "" where the dialect has none (PostgreSQL).
func (d Dialect) ForceIndex(index string) string {
	switch d.Flavor {
	case MySQL:
		return " FORCE INDEX (" + index + ")"
	case SQLite:
		return " INDEXED BY " + index
	}
	return ""
}
