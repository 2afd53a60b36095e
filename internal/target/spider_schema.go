package target

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"shootout/internal/dialect"
)

var (
	createTableRe = regexp.MustCompile("(?is)^\\s*CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?`?(\\w+)`?")
	tablePKRe     = regexp.MustCompile(`(?is)PRIMARY\s+KEY\s*\(([^)]*)\)`)
	columnPKRe    = regexp.MustCompile("(?im)^\\s*`?(\\w+)`?\\s[^,\\n]*\\bPRIMARY\\s+KEY\\b")
	engineRe      = regexp.MustCompile(`(?is)\)\s*ENGINE\s*=.*$`)
	ddlRe         = regexp.MustCompile(`(?i)^\s*(CREATE|DROP|ALTER|TRUNCATE|RENAME)\b`)
	// the head's keys are not unique but for the primary key (headKeys)
	uniqueKeyRe    = regexp.MustCompile(`(?i)\bUNIQUE\s+(KEY|INDEX)\b`)
	uniqueLineRe   = regexp.MustCompile(`(?im)^(\s*)UNIQUE\b`)
	addUniqueRe    = regexp.MustCompile(`(?i)\bADD\s+UNIQUE\b`)
	uniqueColumnRe = regexp.MustCompile(`(?i)(\S)[ \t]+UNIQUE\b`)
)

// headKeys makes every unique key of a head's statement a plain one:
// MariaDB refuses a partitioned table a unique key without the columns
// the partitions are chosen by (shop's products.sku), and the head's
// keys only describe the rows; each backend keeps the key unique among
// the rows it holds.
func headKeys(stmt string) string {
	stmt = uniqueKeyRe.ReplaceAllString(stmt, "$1")
	stmt = uniqueLineRe.ReplaceAllString(stmt, "${1}KEY")
	stmt = addUniqueRe.ReplaceAllString(stmt, "ADD KEY")
	return uniqueColumnRe.ReplaceAllString(stmt, "$1")
}

// ExecSchema runs one of the workload's schema statements on the nodes:
// a CREATE TABLE as written (for the backends' engine) on every backend
// and as a Spider table over them on the head; any other DDL on every
// node; anything else (rows) on the head, which routes them.
//
// Each head table gets a BEFORE DELETE trigger that does nothing: MariaDB
// 10.11's Spider under partitioning answers a DELETE it pushes down whole
// to a backend with 0 rows affected (seen here: DELETE ... WHERE id=5
// deleted the row and said 0; the same table unpartitioned said 1), and a
// workload counts its committed deletes by the rows affected. A trigger
// keeps the head from pushing the DELETE down: it deletes row by row and
// counts them, at the cost of reading each row first.
func (in *spiderInstance) ExecSchema(ctx context.Context, stmt string, rows int64) error {
	if !ddlRe.MatchString(stmt) {
		_, err := in.head().sb.ExecContext(ctx, stmt)
		return err
	}
	for _, b := range in.backends() {
		if _, err := b.sb.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("backend %s: %w", b.name, err)
		}
	}
	head := []string{headKeys(stmt)}
	if m := createTableRe.FindStringSubmatch(stmt); m != nil {
		t, err := spiderTable(stmt, len(in.backends()), in.conf.shard, rows)
		if err != nil {
			return err
		}
		head = []string{t, fmt.Sprintf("CREATE TRIGGER `%s_rowcount` BEFORE DELETE ON `%s` FOR EACH ROW DO 0", m[1], m[1])}
	}
	for _, q := range head {
		if _, err := in.head().sb.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("head: %w", err)
		}
	}
	return nil
}

// spiderTable is a CREATE TABLE rewritten as the head's Spider table: the
// same columns and keys, partitioned by the primary key over the backends
// b1..bN (HASH of an integer key, KEY of any other, for hash; RANGE COLUMNS of the key's first column in rows/N
// steps, the last to MAXVALUE, for range). A table without a primary key
// is not split: it lives on b1.
func spiderTable(stmt string, backends int, shard string, rows int64) (string, error) {
	m := createTableRe.FindStringSubmatch(stmt)
	if m == nil {
		return "", errors.New("not a CREATE TABLE")
	}
	name := m[1]
	var pk []string
	if k := tablePKRe.FindStringSubmatch(stmt); k != nil {
		for _, c := range strings.Split(k[1], ",") {
			pk = append(pk, strings.Trim(strings.TrimSpace(c), "`"))
		}
	} else if k := columnPKRe.FindStringSubmatch(stmt); k != nil {
		pk = []string{k[1]}
	}
	body := engineRe.ReplaceAllString(headKeys(stmt), ")")
	if !strings.HasSuffix(strings.TrimSpace(body), ")") {
		return "", fmt.Errorf("table %s: no closing parenthesis before its options", name)
	}
	if len(pk) == 0 {
		return fmt.Sprintf(`%s ENGINE=SPIDER COMMENT='wrapper "mysql", srv "b1", table "%s"'`, body, name), nil
	}
	var parts []string
	for i := 1; i <= backends; i++ {
		srv := fmt.Sprintf(`COMMENT = 'srv "b%d"'`, i)
		switch {
		case shard != "range":
			parts = append(parts, fmt.Sprintf("PARTITION p%d %s", i, srv))
		case i < backends:
			parts = append(parts, fmt.Sprintf("PARTITION p%d VALUES LESS THAN (%d) %s", i, rows*int64(i)/int64(backends)+1, srv))
		default:
			parts = append(parts, fmt.Sprintf("PARTITION p%d VALUES LESS THAN (MAXVALUE) %s", i, srv))
		}
	}
	by := fmt.Sprintf("KEY (%s)", strings.Join(pk, ", "))
	if len(pk) == 1 && intColumn(stmt, pk[0]) {
		// the key modulo N: every backend 1/N of consecutive ids, where
		// KEY's hash gave 296 and 704 of 1000 over two
		by = fmt.Sprintf("HASH (%s)", pk[0])
	}
	if shard == "range" {
		by = fmt.Sprintf("RANGE COLUMNS (%s)", pk[0])
	}
	return fmt.Sprintf(`%s ENGINE=SPIDER COMMENT='wrapper "mysql", table "%s"' PARTITION BY %s (%s)`, body, name, by, strings.Join(parts, ", ")), nil
}

// intColumn says whether stmt declares column col an integer.
func intColumn(stmt, col string) bool {
	re := regexp.MustCompile("(?im)^\\s*`?" + regexp.QuoteMeta(col) + "`?\\s+(TINYINT|SMALLINT|MEDIUMINT|INT|INTEGER|BIGINT)\\b")
	return re.MatchString(stmt)
}

// Dialect is the backends' engine's: the workload writes its tables for it.
func (in *spiderInstance) Dialect() dialect.Dialect {
	return dialect.Dialect{Flavor: dialect.MySQL, Engine: in.conf.engine}
}

// engine is backend n as a MariaDB instance of the backends' engine.
func (in *spiderInstance) engine(n *spiderNode) *mariadbInstance {
	return &mariadbInstance{managed: n.managed, engine: in.conf.engine, errorLog: n.logFile}
}

// WriteBack writes each backend's dirty pages (or memtables) within
// what is left of limit: the head holds no rows.
func (in *spiderInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	deadline := time.Now().Add(limit)
	var left []string
	var bytes int64
	for _, n := range in.backends() {
		wb, err := in.engine(n).WriteBack(ctx, max(time.Until(deadline), time.Second))
		if err != nil {
			return wb, fmt.Errorf("backend %s: %w", n.name, err)
		}
		if wb.Left != nil {
			left = append(left, n.name+": "+wb.Left.What)
			bytes += max(wb.Left.Bytes, 0)
		}
	}
	if left == nil {
		return WriteBackResult{}, nil
	}
	return WriteBackResult{Left: &Unwritten{Bytes: bytes, What: strings.Join(left, ", ")}}, nil
}

// Settle settles every backend as one server of its engine is settled.
func (in *spiderInstance) Settle(ctx context.Context) (string, error) {
	var notes []string
	for _, n := range in.backends() {
		note, err := in.engine(n).Settle(ctx)
		if err != nil {
			return "", fmt.Errorf("backend %s: %w", n.name, err)
		}
		if note != "" {
			notes = append(notes, n.name+": "+note)
		}
	}
	return strings.Join(notes, "; "), nil
}

// spiderCounted are every node's counters over the window: on a backend
// they are the head's round trips to it and what they carried.
var spiderCounted = []string{"Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Bytes_received", "Bytes_sent", innodbDeadlocks}

func (in *spiderInstance) status(ctx context.Context, n *spiderNode) (map[string]float64, error) {
	st, err := querySettings(ctx, n.db, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(spiderCounted, "','")+"') OR Variable_name LIKE 'Spider%'")
	if err != nil {
		return nil, err
	}
	return numbers(st), nil
}

func (in *spiderInstance) MarkNodes(ctx context.Context) error {
	return in.markAll(func(i int) (map[string]float64, error) { return in.status(ctx, in.nodes[i]) }, procCPU)
}

func (in *spiderInstance) NodeStats(ctx context.Context) ([]NodeStats, error) {
	if err := in.windowStarted(); err != nil {
		return nil, err
	}
	var out []NodeStats
	var errs []error
	for i, n := range in.nodes {
		ns := NodeStats{Name: n.name, Address: n.addr, PID: n.proc.PID()}
		if died := n.diedAt.Load(); died != nil {
			ns.DiedAt = *died
			out = append(out, ns)
			continue
		}
		now, err := in.status(ctx, n)
		if err != nil {
			ns.Unread = err.Error()
			errs = append(errs, fmt.Errorf("node %s: %w", n.name, err))
			out = append(out, ns)
			continue
		}
		ns.CPUSeconds = procCPU(n.proc.PID()) - in.marks[i].cpu
		ns.Counters = map[string]float64{}
		for k, v := range now {
			ns.Counters[k] = v - in.marks[i].counters[k]
		}
		ns.Deadlocks = ns.Counters[innodbDeadlocks]
		delete(ns.Counters, innodbDeadlocks)
		ns.Link = in.linkSince(i)
		out = append(out, ns)
	}
	return out, errors.Join(errs...)
}

// CheckNodes: every table's rows on the head are the sum of the
// backends', each backend's share named.
func (in *spiderInstance) CheckNodes(ctx context.Context) (checked, failures []string, err error) {
	tables, err := columnOf(ctx, in.head().sb, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest' ORDER BY TABLE_NAME")
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tables {
		var total, sum int64
		if err := in.head().sb.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+t+"`").Scan(&total); err != nil {
			return checked, failures, fmt.Errorf("head: %w", err)
		}
		var each []string
		for _, b := range in.backends() {
			var c int64
			if err := b.sb.QueryRowContext(ctx, "SELECT COUNT(*) FROM `"+t+"`").Scan(&c); err != nil {
				return checked, failures, fmt.Errorf("backend %s: %w", b.name, err)
			}
			sum += c
			each = append(each, fmt.Sprintf("%s %d", b.name, c))
		}
		line := fmt.Sprintf("%s rows through the head %d, the backends' sum %d: %s", t, total, sum, strings.Join(each, ", "))
		if total == sum {
			checked = append(checked, line)
		} else {
			failures = append(failures, line)
		}
	}
	return checked, failures, nil
}

// Stop stops every node at once (the directory goes next, so nothing
// needs writing), then removes the hosts and the directory.
func (in *spiderInstance) Stop(ctx context.Context) error {
	return in.stopAll(func(n *spiderNode) error {
		if n.sb != nil {
			n.sb.Close()
		}
		return n.stop(ctx)
	})
}
