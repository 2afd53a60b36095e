package target_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"shootout/internal/target"
	"shootout/internal/testenv"
)

// Every native server starts in a directory of its own under the work
// directory (its data in data/, the directory the ledger and the sweep
// take as the server's), answers its probe, records the allocator it
// maps, keeps its password out of its settings, and leaves nothing when
// it stops.
func TestNativeServersLiveInTheirOwnDirectory(t *testing.T) {
	for _, name := range []string{"redis", "memcached", "tarantool-memtx", "tarantool-vinyl"} {
		t.Run(name, func(t *testing.T) {
			tg, err := target.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			testenv.RequireTarget(t, tg)
			work := testenv.WorkDir(t)
			ctx := context.Background()
			inst, err := tg.Start(ctx, target.StartOptions{WorkDir: work, MemoryBudget: 256 << 20, Settings: map[string]string{target.MallocSetting: "tcmalloc"}})
			if err != nil {
				t.Fatal(err)
			}
			own := filepath.Dir(inst.DataDir())
			if filepath.Dir(own) != work {
				t.Errorf("data in %s: the server's own directory must be one level under %s", inst.DataDir(), work)
			}
			if v, _ := inst.Version(ctx); v == "" {
				t.Error("no version")
			}
			s, err := inst.Settings(ctx)
			if err != nil || len(s) < 5 {
				t.Errorf("settings: %d, %v", len(s), err)
			}
			ep := inst.(target.NativeInstance).Endpoint()
			for k, v := range s {
				if ep.Password != "" && strings.Contains(v, ep.Password) {
					t.Errorf("setting %s holds the password", k)
				}
			}
			if m := inst.Applied()["malloc_lib_mapped"]; !strings.Contains(m, "libtcmalloc") {
				t.Errorf("tcmalloc asked, /proc/PID/maps shows %q", m)
			}
			if _, err := inst.(target.NativeInstance).DataBytes(ctx); err != nil {
				t.Error(err)
			}
			pid := inst.PIDs()[0]
			if err := inst.Stop(ctx); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(own); !os.IsNotExist(err) {
				t.Errorf("%s is still there after Stop", own)
			}
			if syscall.Kill(pid, 0) == nil {
				t.Errorf("pid %d still runs after Stop", pid)
			}
		})
	}
}
