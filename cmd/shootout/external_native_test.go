package main

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/rueidis"
	"github.com/tarantool/go-tarantool/v3"

	"shootout/internal/proto"
	"shootout/internal/result"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// startNative starts a private native server for a test to play the
// user's own, and says how to reach it by URL.
func startNative(t *testing.T, name string) (proto.Endpoint, func()) {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RequireTarget(t, tg)
	inst, err := tg.Start(context.Background(), target.StartOptions{WorkDir: testenv.WorkDir(t), MemoryBudget: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return inst.(target.NativeInstance).Endpoint(), func() { inst.Stop(context.Background()) }
}

// TestExternalNativeServersAreNeverHarmed points shootout at Redis,
// memcached and Tarantool servers that hold someone's own keys and space:
// the run refuses with one line and leaves them as they were; where
// nothing of anyone's is, it loads, then reuses what it loaded. The
// password is in no result file.
func TestExternalNativeServersAreNeverHarmed(t *testing.T) {
	t.Parallel() // its own servers and shootout processes (TestMain says why)
	if testing.Short() {
		t.Skip("starts real servers")
	}
	ctx := context.Background()
	run := func(url, out string) (string, int) {
		stdout, stderr, code := shootout(t, nil, "run", "--targets", url, "--workload", "kv", "--dataset", "2000",
			"--param", "id_count=500", "--param", "rounds=1", "--clients", "2", "--duration", "30s", "--interval", "0", "--out", out)
		return stdout + stderr, code
	}
	work := testenv.WorkDir(t)

	t.Run("redis", func(t *testing.T) {
		ep, stop := startNative(t, "redis")
		defer stop()
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{ep.Address}, Password: ep.Password, DisableCache: true,
			DialCtxFn: func(ctx context.Context, addr string, d *net.Dialer, _ *tls.Config) (net.Conn, error) {
				return d.DialContext(ctx, "unix", addr)
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Do(ctx, c.B().Set().Key("kv:5").Value("mine").Build())
		url := "redis://:" + ep.Password + "@127.0.0.1/?socket=" + ep.Address
		out, code := run(url, filepath.Join(work, "redis-refused"))
		if code == 0 || !strings.Contains(out, "holds keys such as kv:5 that shootout did not write") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if v, _ := c.Do(ctx, c.B().Get().Key("kv:5").Build()).ToString(); v != "mine" {
			t.Fatalf("the user's key is now %q", v)
		}
		// database 15 is empty: loaded, then reused
		url15 := "redis://:" + ep.Password + "@127.0.0.1/15?socket=" + ep.Address
		dir := filepath.Join(work, "redis-15")
		if out, code := run(url15, dir); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		dir2 := filepath.Join(work, "redis-15-again")
		if out, code := run(url15, dir2); code != 0 || !strings.Contains(out, "already loaded") {
			t.Fatalf("the second run did not reuse the load: exit %d:\n%s", code, out)
		}
		noSecret(t, ep.Password, dir, dir2)
	})

	t.Run("memcached", func(t *testing.T) {
		ep, stop := startNative(t, "memcached")
		defer stop()
		c := memcache.New(ep.Address)
		// kv:1500 is past any sample of the first names: only a listing
		// of every key finds it
		c.Set(&memcache.Item{Key: "kv:1500", Value: []byte("mine")})
		c.Set(&memcache.Item{Key: "other:1", Value: []byte("also mine")})
		url := "memcached://127.0.0.1/?socket=" + ep.Address
		out, code := run(url, filepath.Join(work, "mc-refused"))
		if code == 0 || !strings.Contains(out, "holds 1 key(s) named kv:… (kv:1500 the first) that shootout did not write") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if it, err := c.Get("kv:1500"); err != nil || string(it.Value) != "mine" {
			t.Fatalf("the user's item: %v %v", it, err)
		}
		// keys of other names are no obstacle and stay as they were
		c.Delete("kv:1500")
		dir := filepath.Join(work, "mc-loaded")
		if out, code := run(url, dir); code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if out, code := run(url, filepath.Join(work, "mc-again")); code != 0 || !strings.Contains(out, "already loaded") {
			t.Fatalf("the second run did not reuse the load: exit %d:\n%s", code, out)
		}
		if it, err := c.Get("other:1"); err != nil || string(it.Value) != "also mine" {
			t.Fatalf("the user's other item: %v %v", it, err)
		}
	})

	t.Run("memcached without its crawler", func(t *testing.T) {
		// a memcached that cannot list its keys cannot show that the
		// names are free: refused
		sock := filepath.Join(work, "mc-nocrawler.sock")
		me, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		// --user: memcached will not run as root without one
		cmd := exec.Command("memcached", "-s", sock, "-a", "700", "-u", me.Username, "-o", "no_lru_crawler", "-m", "64")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for i := 0; i < 100; i++ {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		out, code := run("memcached://127.0.0.1/?socket="+sock, filepath.Join(work, "mc-nocrawler"))
		if code == 0 || !strings.Contains(out, "cannot list its keys") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := memcache.New(sock).Get("kv:1"); err == nil {
			t.Fatal("shootout wrote kv:1 where it could not see the names were free")
		}
	})

	t.Run("tarantool", func(t *testing.T) {
		ep, stop := startNative(t, "tarantool-memtx")
		defer stop()
		conn, err := tarantool.Connect(ctx, tarantool.NetDialer{Address: "unix/:" + ep.Address, User: ep.User, Password: ep.Password}, tarantool.Opts{})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.Do(tarantool.NewEvalRequest("box.schema.space.create('keyvalue'):create_index('pk') box.space.keyvalue:insert({1, 'mine'})")).Get(); err != nil {
			t.Fatal(err)
		}
		url := "tarantool://" + ep.User + ":" + ep.Password + "@127.0.0.1/?socket=" + ep.Address
		out, code := run(url, filepath.Join(work, "tt-refused"))
		if code == 0 || !strings.Contains(out, "has a space keyvalue that shootout did not make") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		r, err := conn.Do(tarantool.NewEvalRequest("return box.space.keyvalue:get(1)[2]")).Get()
		if err != nil || len(r) == 0 || r[0] != "mine" {
			t.Fatalf("the user's tuple: %v %v", r, err)
		}
	})
}

// noSecret fails when a password reached a file under the directories.
func noSecret(t *testing.T, secret string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return nil
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the password", p)
			}
			return nil
		})
	}
	if _, err := result.ReadDir(dirs[0]); err != nil {
		t.Error(err)
	}
}
