package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// BulkInsert writes rows into table by the fastest plain path each server
// offers: LOAD DATA LOCAL INFILE on MariaDB, COPY on PostgreSQL, a prepared
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
		return loadDataLocal(ctx, conn, table, cols, rows)
	}
}

var readerSeq int64

// loadDataLocal streams rows as tab-separated text through LOAD DATA LOCAL
// INFILE: the server's bulk path, with no SQL to parse per row.
func loadDataLocal(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) error {
	var b strings.Builder
	b.Grow(len(rows) * 48 * len(cols))
	for _, r := range rows {
		for j, v := range r {
			if j > 0 {
				b.WriteByte('\t')
			}
			if err := writeTSV(&b, v); err != nil {
				return fmt.Errorf("%s.%s: %w", table, cols[j], err)
			}
		}
		b.WriteByte('\n')
	}
	name := fmt.Sprintf("shootout-%d", atomic.AddInt64(&readerSeq, 1))
	data := b.String()
	mysql.RegisterReaderHandler(name, func() io.Reader { return strings.NewReader(data) })
	defer mysql.DeregisterReaderHandler(name)
	q := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (%s)",
		name, table, strings.Join(cols, ","))
	_, err := conn.ExecContext(ctx, q)
	return err
}

// writeTSV renders one value in LOAD DATA's default escaping.
func writeTSV(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString(`\N`)
		return nil
	case string:
		writeEscapedTSV(b, x)
		return nil
	case []byte:
		writeEscapedTSV(b, string(x))
		return nil
	case time.Time:
		b.WriteString(x.UTC().Format("2006-01-02 15:04:05.999999"))
		return nil
	}
	return writeNumber(b, v)
}

func writeEscapedTSV(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
}

// writeNumber renders a numeric or boolean value as LOAD DATA reads it.
func writeNumber(b *strings.Builder, v any) error {
	switch x := v.(type) {
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
	default:
		return fmt.Errorf("cannot load a value of type %T", v)
	}
	return nil
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

// BulkLoadSession is what a loading connection sets before it writes rows
// in primary-key order into empty tables. MyRocks then writes sorted SST
// files straight to the bottom level instead of through memtables and
// compactions. (InnoDB's bulk insert into an empty table, one transaction
// with unique checks off, was no faster here and slower with a 1G buffer
// pool, so InnoDB loads in autocommitted batches.)
func (d Dialect) BulkLoadSession() []string {
	if d.Flavor == MySQL && d.Engine == "rocksdb" {
		return []string{"SET SESSION rocksdb_bulk_load_allow_unsorted=0", "SET SESSION rocksdb_bulk_load=1"}
	}
	return nil
}

// EndBulkLoadSession finishes what BulkLoadSession began and puts the
// session back as it was, since the connection returns to the pool.
func (d Dialect) EndBulkLoadSession() []string {
	if d.Flavor == MySQL && d.Engine == "rocksdb" {
		return []string{"SET SESSION rocksdb_bulk_load=0"}
	}
	return nil
}
