package target_test

import (
	"context"
	"strings"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestMyRocksRunsOnJemalloc: MyRocks starts on jemalloc unless the plan
// says otherwise, and the server itself reports the allocator it runs on.
func TestMyRocksRunsOnJemalloc(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real servers")
	}
	for _, c := range []struct {
		target   target.MariaDB
		settings map[string]string
		want     string
	}{
		{target.MariaDB{Engine: "rocksdb"}, nil, "jemalloc"},
		{target.MariaDB{Engine: "rocksdb"}, map[string]string{target.MallocSetting: "system"}, "system"},
		{target.MariaDB{Engine: "innodb"}, nil, "system"},
	} {
		testenv.RequireTarget(t, c.target)
		inst, err := c.target.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), Settings: c.settings})
		if err != nil {
			t.Fatal(err)
		}
		var lib string
		err = inst.(target.SQLInstance).DB().QueryRow("SELECT @@version_malloc_library").Scan(&lib)
		inst.Stop(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(lib, c.want) {
			t.Errorf("%s with %v runs on %q, want %s", c.target.Name(), c.settings, lib, c.want)
		}
		if got := inst.Applied()[target.MallocSetting]; got != c.want {
			t.Errorf("%s: recorded %s=%q, want %q", c.target.Name(), target.MallocSetting, got, c.want)
		}
	}
}
