package workload

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
)

// Batch is a slice of rows for one table, made by a pure function of the
// dataset seed and the batch number so any loader goroutine can make any
// batch and every target gets the same data.
type Batch struct {
	Table string
	Cols  []string
	Rows  [][]any
}

// LoadBatches makes and inserts batches 0..n-1 on `parallel` connections,
// reporting rows through progress. It stops at the first error.
func LoadBatches(ctx context.Context, db *sql.DB, insert func(context.Context, *sql.Conn, Batch) error,
	n, parallel int, make func(batch int) Batch, progress Progress) (map[string]int64, error) {
	if parallel < 1 {
		parallel = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next int64 = -1
	var mu sync.Mutex
	tables := map[string]int64{}
	var firstErr error
	var once sync.Once
	fail := func(err error) { once.Do(func() { firstErr = err; cancel() }) }
	var wg sync.WaitGroup
	for p := 0; p < parallel; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				fail(fmt.Errorf("loader connection: %w", err))
				return
			}
			defer conn.Close()
			for {
				i := int(atomic.AddInt64(&next, 1))
				if i >= n || ctx.Err() != nil {
					return
				}
				b := make(i)
				if err := insert(ctx, conn, b); err != nil {
					fail(fmt.Errorf("insert batch %d into %s: %w", i, b.Table, err))
					return
				}
				mu.Lock()
				tables[b.Table] += int64(len(b.Rows))
				mu.Unlock()
				if progress != nil {
					progress(int64(len(b.Rows)))
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return tables, firstErr
	}
	return tables, ctx.Err()
}
