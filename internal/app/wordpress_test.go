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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shootout/internal/proto"
	"shootout/internal/testenv"
)

const wordpressHelperEnv = "SHOOTOUT_APP_TEST_WORDPRESS"

// init makes the test binary, re-executed with wordpressHelperEnv set to a
// work directory, a stand-in for a shootout that runs WordPress: it
// starts php-fpm and nginx, prints their PIDs and waits to be killed.
// (TestMain is Redmine's helper; this one needs no database: a page is
// not asked for.)
func init() {
	dir := os.Getenv(wordpressHelperEnv)
	if dir == "" {
		return
	}
	wp, err := NewWordPress(WordPressOptions{WorkDir: dir, Workers: 2, Conn: noDatabase})
	if err == nil {
		err = wp.Start(context.Background())
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(strings.Trim(fmt.Sprint(wp.PIDs()), "[]"))
	time.Sleep(time.Hour) // until killed
}

// noDatabase is an address no MariaDB answers: the tests here ask
// nginx and php-fpm for nothing that reaches it.
var noDatabase = proto.Endpoint{Protocol: proto.SQL, Network: "tcp", Address: "127.0.0.1:1", User: "wordpress", Password: `it's \ secret`, Database: "wordpress"}

func needWordPress(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Debian's WordPress")
	}
	if err := WordPressAvailable(); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skip(err)
	}
}

// TestKilledShootoutLeavesNoWordPress: a shootout SIGKILLed while
// WordPress serves runs no cleanup; the parent-death signal must still
// end nginx and php-fpm's master, and the master its children.
func TestKilledShootoutLeavesNoWordPress(t *testing.T) {
	needWordPress(t)
	start := time.Now()
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), wordpressHelperEnv+"="+testenv.WorkDir(t))
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
	// nginx, php-fpm's master and its two children
	if len(pids) < 4 {
		t.Fatalf("expected nginx, php-fpm's master and two children, the helper said %q", line)
	}
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	for _, pid := range pids {
		for end := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
				t.Fatalf("WordPress's %d (of %v) still runs 30 s after its shootout was SIGKILLed", pid, pids)
			}
		}
	}
	t.Logf("%d processes gone with their shootout in %v", len(pids), time.Since(start).Round(time.Millisecond))
}

// TestNginxGetsAnotherPortWhenItsFirstIsTaken: another program binds the
// port between the probe and nginx's bind, and answers HTTP there.
// WordPress must start on another port, and its URL must be nginx's, not
// the squatter's.
func TestNginxGetsAnotherPortWhenItsFirstIsTaken(t *testing.T) {
	needWordPress(t)
	start := time.Now()
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	go http.Serve(squatter, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("not WordPress"))
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
	wp, err := NewWordPress(WordPressOptions{WorkDir: testenv.WorkDir(t), Workers: 1, Conn: noDatabase})
	if err != nil {
		t.Fatal(err)
	}
	defer wp.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := wp.Start(ctx); err != nil {
		t.Fatalf("start with its first port taken: %v", err)
	}
	if probes < 2 {
		t.Fatalf("nginx never tried another port (%d probes)", probes)
	}
	if strings.HasSuffix(wp.URL, ":"+strconv.Itoa(taken)) {
		t.Fatalf("WordPress's URL is the squatter's: %s", wp.URL)
	}
	// a static file of Debian's docroot, served by nginx itself
	resp, err := http.Get(wp.URL + "/wp-includes/js/wp-embed.min.js")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Server") == "" || !strings.Contains(resp.Header.Get("Server"), "nginx") {
		t.Errorf("%s answered %s (%q) without nginx's file: %.200s", wp.URL, resp.Status, resp.Header.Get("Server"), body)
	}
	t.Logf("started on its second port in %v", time.Since(start).Round(time.Millisecond))
}

// TestWPConfigSaysTheEndpointToPHP: wp-config.php is PHP that gives
// WordPress the endpoint as it is, a password with a quote and a
// backslash included.
func TestWPConfigSaysTheEndpointToPHP(t *testing.T) {
	php := testenv.LookPath(t, "php")
	cfg, err := wpConfig(noDatabase)
	if err != nil {
		t.Fatal(err)
	}
	cfg = strings.Replace(cfg, "require_once ABSPATH . 'wp-settings.php';", `echo DB_HOST, "\n", DB_USER, "\n", DB_PASSWORD, "\n", DB_NAME, "\n";`, 1)
	file := filepath.Join(t.TempDir(), "wp-config.php")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(php, file).CombinedOutput()
	if err != nil {
		t.Fatalf("php %s: %v: %s", file, err, out)
	}
	want := strings.Join([]string{noDatabase.Address, noDatabase.User, noDatabase.Password, noDatabase.Database, ""}, "\n")
	if string(out) != want {
		t.Errorf("PHP read %q from wp-config.php, want %q", out, want)
	}
}
