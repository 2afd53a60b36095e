package workload

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"shootout/internal/dialect"
)

// Batch is a slice of rows for one table, made by a pure function of the
// dataset seed and the batch number so any loader goroutine can make any
// batch and every target gets the same data.
type Batch struct {
	Table string
	Cols  []string
	Rows  [][]any
}

// LoadOrdered makes batches 0..n-1 on `parallel` goroutines but inserts
// them in order on one connection. Rows then reach the table in primary-key
// order, as sysbench prepare writes them: the B-tree fills its pages instead
// of splitting them (parallel writers left InnoDB's sbtest a third larger),
// and an LSM engine gets sorted input.
func LoadOrdered(ctx context.Context, db *sql.DB, d dialect.Dialect, insert func(context.Context, *sql.Conn, Batch) error,
	n, parallel int, makeBatch func(batch int) Batch, progress Progress) (_ map[string]int64, _ map[string]float64, err error) {
	if parallel < 1 {
		parallel = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("loader connection: %w", err)
	}
	defer func() {
		if err != nil {
			// the session is half-way through a bulk load: never let it
			// back into the pool
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}()
	for _, q := range d.BulkLoadSession() {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	// one slot per batch in flight, read in order by the writer below
	slots := make(chan chan Batch, parallel*2)
	go func() {
		defer close(slots)
		sem := make(chan struct{}, parallel)
		for i := 0; i < n; i++ {
			slot := make(chan Batch, 1)
			select {
			case slots <- slot:
			case <-ctx.Done():
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func(i int) {
				slot <- makeBatch(i)
				<-sem
			}(i)
		}
	}()
	tables := map[string]int64{}
	seconds := map[string]float64{} // time spent inserting, per table
	i := 0
	for slot := range slots {
		var b Batch
		select {
		case b = <-slot:
		case <-ctx.Done():
			return tables, seconds, ctx.Err()
		}
		t0 := time.Now()
		if err := insert(ctx, conn, b); err != nil {
			return tables, seconds, fmt.Errorf("insert batch %d into %s: %w", i, b.Table, err)
		}
		seconds[b.Table] += time.Since(t0).Seconds()
		tables[b.Table] += int64(len(b.Rows))
		if progress != nil {
			progress(int64(len(b.Rows)))
		}
		i++
	}
	if err := ctx.Err(); err != nil {
		return tables, seconds, err
	}
	for _, q := range d.EndBulkLoadSession() {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return tables, seconds, fmt.Errorf("%s: %w", q, err)
		}
	}
	return tables, seconds, nil
}

// CreateTables drops and creates each of a workload's portable tables,
// without their secondary indexes (IndexTables adds them after the load).
func CreateTables(d dialect.Dialect, ts []dialect.Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, "DROP TABLE IF EXISTS "+t.Name)
		ddl, err := d.CreateTable(t)
		if err != nil {
			panic(err) // a workload's tables are fixed: a bad type is its bug
		}
		out = append(out, ddl)
	}
	return out
}

// IndexTables builds the tables' secondary indexes and moves their id
// sequences past the loaded ids.
func IndexTables(d dialect.Dialect, ts []dialect.Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, d.CreateIndexes(t)...)
		if !t.NoID {
			out = append(out, d.ResetSequence(t.Name)...)
		}
	}
	return out
}

// LoadBatches loads batches, made on parallel goroutines (one on SQLite,
// whose single writer they would only wait for) and inserted in order by
// the dialect's bulk path.
func LoadBatches(ctx context.Context, db *sql.DB, d dialect.Dialect, batches []func() Batch, parallel int, progress Progress) (LoadStats, error) {
	start := time.Now()
	if d.Flavor == dialect.SQLite {
		parallel = 1
	}
	insert := func(ctx context.Context, c *sql.Conn, b Batch) error {
		return d.BulkInsert(ctx, c, b.Table, b.Cols, b.Rows)
	}
	tables, secs, err := LoadOrdered(ctx, db, d, insert, len(batches), parallel, func(i int) Batch { return batches[i]() }, progress)
	var rows int64
	for _, n := range tables {
		rows += n
	}
	return LoadStats{Rows: rows, Seconds: time.Since(start).Seconds(), Tables: tables, TableSeconds: secs}, err
}
