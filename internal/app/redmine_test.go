package app

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/testenv"
)

const helperEnv = "SHOOTOUT_APP_TEST_HELPER"

// TestMain makes the test binary, re-executed with helperEnv set to a work
// directory, a stand-in for a shootout that runs Redmine: it starts puma
// as a cell does, prints puma's PIDs (master first) and waits to be killed.
func TestMain(m *testing.M) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		os.Exit(m.Run())
	}
	rm, err := NewRedmine(RedmineOptions{WorkDir: dir, Workers: 2, Flavor: dialect.SQLite,
		Conn: proto.Endpoint{Protocol: proto.SQL, Network: "file", Address: filepath.Join(dir, "redmine.db")}})
	if err == nil {
		if err = rm.Migrate(context.Background()); err == nil {
			err = rm.Start(context.Background())
		}
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(strings.Trim(fmt.Sprint(rm.PIDs()), "[]"))
	time.Sleep(time.Hour) // until killed
}

func needRedmine(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Debian's Redmine")
	}
	if err := RedmineAvailable(dialect.SQLite); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skip(err)
	}
}

// TestKilledShootoutLeavesNoPuma: a shootout SIGKILLed while Redmine
// serves runs no cleanup; the kernel's parent-death signal must still end
// puma's master, and the master its workers, and the sweep must remove
// the instance the run left.
func TestKilledShootoutLeavesNoPuma(t *testing.T) {
	// beside TestPumaGetsAnotherPortWhenItsFirstIsTaken: each migrates and
	// starts a Redmine of its own, in its own directory, this one in a
	// process of its own, and neither asserts a time it would stretch
	t.Parallel()
	needRedmine(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+testenv.WorkDir(t))
	helper.Stderr = os.Stderr
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { helper.Process.Kill(); helper.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	var pids []int
	for _, f := range strings.Fields(line) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) < 3 {
		t.Fatalf("expected puma's master and two workers, the helper said %q", line)
	}
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	for _, pid := range pids {
		for end := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
				t.Fatalf("puma's %d (of %v) still runs 30 s after its shootout was SIGKILLed", pid, pids)
			}
		}
	}
	name := InstancePrefix + strconv.Itoa(helper.Process.Pid) + "-"
	swept := Sweep()
	if !slices.ContainsFunc(swept, func(s string) bool { return strings.HasPrefix(s, name) }) {
		t.Errorf("the sweep removed %v, not the killed run's instance %s*", swept, name)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// TestPumaGetsAnotherPortWhenItsFirstIsTaken: another program binds the
// port between the probe and puma's bind, and answers HTTP there. Redmine
// must start on another port, and its URL must be puma's, not the
// squatter's.
func TestPumaGetsAnotherPortWhenItsFirstIsTaken(t *testing.T) {
	// beside TestKilledShootoutLeavesNoPuma, whose puma starts in a
	// process of its own: freePort is swapped in this one only
	t.Parallel()
	needRedmine(t)
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	go http.Serve(squatter, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("not Redmine"))
	}))
	taken := squatter.Addr().(*net.TCPAddr).Port
	probes := 0
	defer func(real func() (int, error)) { freePort = real }(freePort)
	real := freePort
	freePort = func() (int, error) {
		probes++
		if probes == 1 {
			return taken, nil
		}
		return real()
	}

	dir := testenv.WorkDir(t)
	rm, err := NewRedmine(RedmineOptions{WorkDir: dir, Workers: 1, Flavor: dialect.SQLite,
		Conn: proto.Endpoint{Protocol: proto.SQL, Network: "file", Address: filepath.Join(dir, "redmine.db")}})
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := rm.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rm.Start(ctx); err != nil {
		t.Fatalf("start with its first port taken: %v", err)
	}
	if probes < 2 {
		t.Fatalf("puma never tried another port (%d probes)", probes)
	}
	if strings.HasSuffix(rm.URL, ":"+strconv.Itoa(taken)) {
		t.Fatalf("Redmine's URL is the squatter's: %s", rm.URL)
	}
	resp, err := http.Get(rm.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `<meta name="csrf-token"`) {
		t.Errorf("%s answered %s without a Rails page: %.200s", rm.URL, resp.Status, body)
	}
	if len(rm.PIDs()) < 2 {
		t.Errorf("puma's master and worker: %v", rm.PIDs())
	}
}

// TestRakeFailureSaysWhyAboveTheTail: the error Ruby wrote at once sits
// above the migrations' output flushed at exit; the message must carry it.
func TestRakeFailureSaysWhyAboveTheTail(t *testing.T) {
	log := filepath.Join(t.TempDir(), "rake.log")
	body := "rake aborted!\nActiveRecord::StatementInvalid: Mysql2::Error: Lock wait timeout exceeded\n/usr/share/x.rb:1\n"
	for i := range 20 {
		body += fmt.Sprintf("== %d SomeMigration: migrated\n", i)
	}
	if err := os.WriteFile(log, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got := rakeFailure(log)
	for _, want := range []string{"rake aborted!", "Lock wait timeout exceeded", "19 SomeMigration"} {
		if !strings.Contains(got, want) {
			t.Errorf("rakeFailure = %q, lacks %q", got, want)
		}
	}
}
