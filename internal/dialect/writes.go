package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IdleConns is how many idle connections a target's pool keeps: enough
// for every client of a cell to hand its connection back and take it again.
const IdleConns = 64

// EngineWrites is what the server's own counters say it wrote, split the
// way that explains a bytes-written figure: its log (redo, WAL, RocksDB
// WAL) against its data files (pages, SST flushes and compactions). The
// process's write_bytes cannot tell those apart.
type EngineWrites struct {
	LogBytes  int64
	DataBytes int64
	// FullPageImages is PostgreSQL's count of whole 8 kB pages copied into
	// the WAL on the first change of each page after a checkpoint.
	FullPageImages int64
	// Source names the counters, for the reader of a result.
	Source string
}

// Sub is the change from before to w.
func (w EngineWrites) Sub(before EngineWrites) EngineWrites {
	return EngineWrites{LogBytes: w.LogBytes - before.LogBytes, DataBytes: w.DataBytes - before.DataBytes,
		FullPageImages: w.FullPageImages - before.FullPageImages, Source: w.Source}
}

// engineWriteCounters are, per MariaDB engine, the GLOBAL STATUS counters
// of log and data bytes written (data is the sum of its list).
var engineWriteCounters = map[string]struct {
	log  string
	data []string
}{
	"innodb":  {"Innodb_os_log_written", []string{"Innodb_data_written"}},
	"rocksdb": {"Rocksdb_wal_bytes", []string{"Rocksdb_flush_write_bytes", "Rocksdb_compact_write_bytes"}},
}

// ReadEngineWrites reads the counters; ok is false when the server or
// engine keeps none that shootout knows (SQLite, Aria, MyISAM, MEMORY).
func (d Dialect) ReadEngineWrites(ctx context.Context, db *sql.DB) (w EngineWrites, ok bool, err error) {
	switch d.Flavor {
	case Postgres:
		// an idle backend publishes its WAL statistics up to 10 s late,
		// one that exits does so at once: without this the VACUUM of the
		// settling would be counted in the run, and the run's end after it
		if err := endIdleBackends(ctx, db); err != nil {
			return w, false, err
		}
		err = db.QueryRowContext(ctx, `SELECT w.wal_bytes::bigint, w.wal_fpi,
  (b.buffers_checkpoint + b.buffers_clean + b.buffers_backend) * current_setting('block_size')::bigint
  FROM pg_stat_wal w, pg_stat_bgwriter b`).Scan(&w.LogBytes, &w.FullPageImages, &w.DataBytes)
		w.Source = "pg_stat_wal.wal_bytes, wal_fpi; pg_stat_bgwriter buffers_checkpoint+buffers_clean+buffers_backend × block_size"
		return w, err == nil, err
	case MySQL:
		c, known := engineWriteCounters[d.Engine]
		if !known {
			return w, false, nil
		}
		names := append([]string{c.log}, c.data...)
		values := map[string]int64{}
		rows, err := db.QueryContext(ctx, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS")
		if err != nil {
			return w, false, err
		}
		defer rows.Close()
		for rows.Next() {
			var name, value string
			if err := rows.Scan(&name, &value); err != nil {
				return w, false, err
			}
			if n, err := strconv.ParseInt(value, 10, 64); err == nil {
				values[strings.ToUpper(name)] = n
			}
		}
		if err := rows.Err(); err != nil {
			return w, false, err
		}
		for _, n := range names {
			if _, found := values[strings.ToUpper(n)]; !found {
				return w, false, fmt.Errorf("status counter %s not found", n)
			}
		}
		w.LogBytes = values[strings.ToUpper(c.log)]
		for _, n := range c.data {
			w.DataBytes += values[strings.ToUpper(n)]
		}
		w.Source = fmt.Sprintf("GLOBAL STATUS %s (log); %s (data)", c.log, strings.Join(c.data, " + "))
		return w, true, nil
	}
	return w, false, nil
}

// endIdleBackends closes the pool's idle connections and waits (at most
// 5 s) until their backends have exited.
func endIdleBackends(ctx context.Context, db *sql.DB) error {
	db.SetMaxIdleConns(0)
	defer db.SetMaxIdleConns(IdleConns)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var others int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()`).Scan(&others)
		if err != nil || others == 0 || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
