package capture

import "testing"

func TestFingerprintReplacesLiteralsAsPtQueryDigest(t *testing.T) {
	for _, c := range []struct{ proto, in, want string }{
		{ProtoMySQL, "SELECT * FROM t WHERE id = 5", "select * from t where id = ?"},
		{ProtoMySQL, "select  c\n FROM sbtest1 WHERE id=-12 /* x */", "select c from sbtest1 where id=?"},
		{ProtoMySQL, "SELECT a FROM t1 WHERE b IN (1, 2, 3) AND c = 'it''s' AND d = \"x\\\"y\"", "select a from t1 where b in(?+) and c = ? and d = ?"},
		{ProtoMySQL, "INSERT INTO t VALUES (1,'a'),(2,'b')", "insert into t values(?+)"},
		{ProtoMySQL, "SELECT * FROM t LIMIT 10, 20", "select * from t limit ?"},
		{ProtoMySQL, "SELECT * FROM t LIMIT 10 OFFSET 5", "select * from t limit ?"},
		{ProtoMySQL, "select 0x1F, 1.5e-3, .5 from `t2`", "select ?, ?, ? from `t2`"},
		{ProtoMySQL, "SELECT * FROM t WHERE a = ? AND b = ?", "select * from t where a = ? and b = ?"},
		{ProtoMySQL, "# note\nSELECT col1 FROM tab2 -- tail", "select col1 from tab2"},
		{ProtoPostgres, `SELECT "Name" FROM users WHERE id = $1 AND s = E'a\'b' AND d = $q$x$q$`, `select "name" from users where id = ? and s = ? and d = ?`},
		{ProtoPostgres, "SELECT 'a\\' FROM t WHERE x = 'b'", "select ? from t where x = ?"},
		{ProtoPostgres, "select id from t where k = any($1) and v = -$2", "select id from t where k = any(?) and v = ?"},
	} {
		if got := Fingerprint(c.proto, c.in); got != c.want {
			t.Errorf("Fingerprint(%s, %q)\n got %q\nwant %q", c.proto, c.in, got, c.want)
		}
	}
}

func TestTextKindTellsTransactionsAndSessionState(t *testing.T) {
	for in, want := range map[string]string{
		"BEGIN": KindBegin, "start transaction read only": KindBegin, "START SLAVE": KindQuery,
		"commit;": KindCommit, "ROLLBACK": KindRollback, "rollback to savepoint a": KindQuery,
		"/* app */ USE shop": KindInitDB, "SET NAMES utf8mb4": KindSet, "select 1": KindQuery, "": KindQuery,
	} {
		if got := TextKind(in); got != want {
			t.Errorf("TextKind(%q) = %s, want %s", in, got, want)
		}
	}
}
