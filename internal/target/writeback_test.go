package target_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestInnoDBWriteBackSaysWhatItLeft: a write-back that runs out of time
// says how many pages and bytes were still dirty; given time, it writes
// them and says nothing is left.
func TestInnoDBWriteBackSaysWhatItLeft(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real server")
	}
	tg := target.MariaDB{Engine: "innodb"}
	testenv.RequireTarget(t, tg)
	ctx := context.Background()
	inst, err := tg.Start(ctx, target.StartOptions{WorkDir: testenv.WorkDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop(ctx)
	db := inst.(target.SQLInstance).DB()
	// about 24 MB of rows: more pages than the page cleaner writes
	// between the write-back's start and its first look
	for _, q := range []string{"CREATE TABLE wb (id INT PRIMARY KEY AUTO_INCREMENT, pad CHAR(240)) ENGINE=InnoDB",
		"INSERT INTO wb (pad) SELECT REPEAT('x', 240) FROM seq_1_to_100000"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := inst.WriteBack(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Left == nil || got.Left.Bytes < 16<<14 || !strings.HasSuffix(got.Left.What, " InnoDB dirty pages") {
		t.Fatalf("a write-back given no time left %+v: it must say how much was still dirty", got.Left)
	}
	t.Logf("left after no time: %s, %d bytes", got.Left.What, got.Left.Bytes)
	got, err = inst.WriteBack(ctx, time.Minute)
	if err != nil || got.Left != nil {
		t.Fatalf("a write-back given a minute left %+v (%v)", got.Left, err)
	}
}
