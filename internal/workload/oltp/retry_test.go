package oltp

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mattn/go-sqlite3"

	"shootout/internal/dialect"
	"shootout/internal/driver"
	"shootout/internal/testenv/lostanswer"
	"shootout/internal/workload"
)

// A transaction rolled back and run again sent its statements twice, and
// sysbench counts every one it sent: the queries of the attempts that
// failed count in qps (reads/writes/other), the failed statement as an
// error, the event once. The first two UPDATEs fail as a busy lock does,
// after BEGIN and the 14 reads of oltp_read_write.
func TestARetriedTransactionsStatementsCountAsSysbenchCountsThem(t *testing.T) {
	defer lostanswer.Fail("", 0, nil)
	w := newTest(t, "oltp_read_write", nil)
	path := filepath.Join(t.TempDir(), "s.db")
	_, ds := sqliteAt(t, w, path, 1000)
	lost, err := sql.Open(lostanswer.DriverName, path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	sqlite := dialect.Dialect{Flavor: dialect.SQLite}
	connect := func(ctx context.Context, client int) (workload.Worker, error) {
		conn, err := lost.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return w.NewWorker(ctx, conn, sqlite, ds, client)
	}
	lostanswer.Fail("UPDATE", 2, sqlite3.Error{Code: sqlite3.ErrBusy})
	res, err := driver.Run(context.Background(), driver.Config{Clients: 1, Ops: 1, MaxRetries: 3, OpNames: w.Ops(), Classify: dialect.Classify}, connect)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 1 || res.Errors != 2 {
		t.Fatalf("events %d, errors %d; want 1 event after 2 failed attempts", res.Events, res.Errors)
	}
	// three attempts of BEGIN and 14 reads, the last one's 4 writes and COMMIT
	if res.Reads != 3*14 || res.Writes != 4 || res.Other != 3+1 {
		t.Fatalf("reads/writes/other %d/%d/%d, want %d/4/4 as sysbench counts them", res.Reads, res.Writes, res.Other, 3*14)
	}
}
