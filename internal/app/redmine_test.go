package app

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"shootout/internal/dialect"
	"shootout/internal/proto"
	"shootout/internal/testenv"
)

// TestPumaGetsAnotherPortWhenItsFirstIsTaken: another program binds the
// port between the probe and puma's bind, and answers HTTP there. Redmine
// must start on another port, and its URL must be puma's, not the
// squatter's.
func TestPumaGetsAnotherPortWhenItsFirstIsTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Debian's Redmine")
	}
	if err := RedmineAvailable(dialect.SQLite); err != nil {
		if testenv.CI() {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skip(err)
	}
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
