package target

import (
	"strings"
	"testing"
)

const oltpTable = "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id)\n) ENGINE=innodb"

// TestSpiderTable: a workload's CREATE TABLE becomes the head's Spider
// table with the same columns, partitioned over the backends by the
// primary key (an integer key modulo N, any other by KEY, or ranges of
// the dataset's rows), and a table without a primary key stays whole on
// the first backend.
func TestSpiderTable(t *testing.T) {
	for _, c := range []struct {
		stmt, shard string
		want        []string
	}{
		{oltpTable, "hash", []string{"k INTEGER DEFAULT '0' NOT NULL", `) ENGINE=SPIDER COMMENT='wrapper "mysql", table "sbtest1"' PARTITION BY HASH (id) (PARTITION p1 COMMENT = 'srv "b1"', PARTITION p2 COMMENT = 'srv "b2"', PARTITION p3 COMMENT = 'srv "b3"')`}},
		{oltpTable, "range", []string{`PARTITION BY RANGE COLUMNS (id) (PARTITION p1 VALUES LESS THAN (334) COMMENT = 'srv "b1"', PARTITION p2 VALUES LESS THAN (667) COMMENT = 'srv "b2"', PARTITION p3 VALUES LESS THAN (MAXVALUE) COMMENT = 'srv "b3"')`}},
		{"CREATE TABLE keyvalue (\n  id BIGINT NOT NULL PRIMARY KEY,\n  value1 INT\n) ENGINE=rocksdb", "hash", []string{"PARTITION BY HASH (id)"}},
		{"CREATE TABLE kv (\n  name VARCHAR(32) NOT NULL PRIMARY KEY\n) ENGINE=innodb", "hash", []string{"PARTITION BY KEY (name)"}},
		{"CREATE TABLE lines (\n  a INT NOT NULL,\n  b INT NOT NULL,\n  PRIMARY KEY (a, b)\n) ENGINE=innodb", "hash", []string{"PARTITION BY KEY (a, b)"}},
		{"CREATE TABLE product_flags (\n  product_id INT NOT NULL\n) ENGINE=innodb", "hash", []string{`) ENGINE=SPIDER COMMENT='wrapper "mysql", srv "b1", table "product_flags"'`}},
	} {
		got, err := spiderTable(c.stmt, 3, c.shard, 1000)
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s (%s):\n%s\nwant it to hold %s", c.stmt, c.shard, got, w)
			}
		}
		if strings.Contains(got, "ENGINE=innodb") || strings.Contains(got, "ENGINE=rocksdb") {
			t.Errorf("the backend's engine left on the head: %s", got)
		}
	}
}

// TestSpiderSettings: the target's own settings are taken out of what
// goes to mariadbd, and a bad one is refused naming what is valid.
func TestSpiderSettings(t *testing.T) {
	c, err := spiderConfig(map[string]string{"backends": "3", "backend_engine": "rocksdb", "shard": "range", "max_connections": "50"})
	if err != nil || c.backends != 3 || c.engine != "rocksdb" || c.shard != "range" || len(c.server) != 1 {
		t.Errorf("parsed %+v, %v", c, err)
	}
	if c, _ := spiderConfig(nil); c.backends != 2 || c.engine != "innodb" || c.shard != "hash" {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []map[string]string{{"backends": "0"}, {"backend_engine": "aria"}, {"shard": "list"}} {
		if _, err := spiderConfig(bad); err == nil || !strings.Contains(err.Error(), "valid:") {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if (Spider{}).CheckSettings(map[string]string{"shard": "list"}) == nil {
		t.Error("a bad shard passes the plan's check")
	}
	if NodesOf(Spider{}, map[string]string{"backends": "4"}) != 5 {
		t.Error("a head and 4 backends are 5 nodes")
	}
}

// TestSpiderHeadKeysNotUnique: the head's statements keep every key but
// none unique except the primary key (MariaDB refuses a partitioned
// table a unique key without the partitioning columns).
func TestSpiderHeadKeysNotUnique(t *testing.T) {
	for in, want := range map[string]string{
		"ALTER TABLE products ADD INDEX ix_g (group_id), ADD UNIQUE INDEX ix_sku (sku)": "ALTER TABLE products ADD INDEX ix_g (group_id), ADD INDEX ix_sku (sku)",
		"CREATE UNIQUE INDEX u ON t(a)": "CREATE INDEX u ON t(a)",
		"CREATE TABLE t (\n  id INT PRIMARY KEY,\n  sku VARCHAR(3) NOT NULL UNIQUE,\n  UNIQUE KEY u (sku),\n  UNIQUE (a, b)\n)": "CREATE TABLE t (\n  id INT PRIMARY KEY,\n  sku VARCHAR(3) NOT NULL,\n  KEY u (sku),\n  KEY (a, b)\n)",
		"ALTER TABLE t ADD UNIQUE (a)": "ALTER TABLE t ADD KEY (a)",
	} {
		if got := headKeys(in); got != want {
			t.Errorf("headKeys(%q) = %q, want %q", in, got, want)
		}
	}
}
