package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"shootout/internal/app"
	"shootout/internal/capture"
	"shootout/internal/target"
	"shootout/internal/testenv"
)

// TestWordPressCapturedAndReplayed: Debian's WordPress 6.1 (php-fpm and
// nginx of the test's own) against a private MariaDB through shootout's
// capture proxy: installed by its own installer, then a login, a few
// posts and comments over the REST API and the comment form, and page
// views; the
// capture replays on InnoDB, the engine it came from, and on MyRocks,
// from the dump the proxy took: every captured command sent once, each
// session in its order, every answer equal to the capture's.
func TestWordPressCapturedAndReplayed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Debian's WordPress and real servers")
	}
	if err := app.WordPressAvailable(); err != nil {
		if testenv.CI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// the capture outlives its subtest, whose servers stop at its end
	file := filepath.Join(t.TempDir(), "wordpress.capture")
	captured := t.Run("capture", func(t *testing.T) {
		start := time.Now()
		captureWordPress(t, file)
		t.Logf("captured in %v", time.Since(start).Round(time.Millisecond))
	})
	if !captured {
		return
	}
	for _, to := range []string{"mariadb-innodb", "mariadb-rocksdb"} {
		t.Run(to, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			replayOn(t, file, to)
			t.Logf("replayed in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

// captureWordPress installs WordPress through a first proxy (the tables
// are the data the capture starts from: its proxy takes their dump),
// then captures a user's visit into out.
func captureWordPress(t *testing.T, out string) {
	inst := startTarget(t, "mariadb-innodb")
	ep := inst.Endpoint()
	port, err := target.FreeLoopbackPort()
	if err != nil {
		t.Fatal(err)
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	dir := filepath.Dir(out)
	to := fmt.Sprintf("mysql://%s:%s@%s/%s", ep.User, ep.Password, ep.Address, ep.Database)
	conn := ep
	conn.Network, conn.Address = "tcp", listen
	wp, err := app.NewWordPress(app.WordPressOptions{WorkDir: testenv.WorkDir(t), Workers: 2, Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	// before the servers' cleanups: nothing of WordPress outlives the test
	t.Cleanup(func() { wp.Stop() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	step := time.Now()
	install := startProxy(t, listen, to, filepath.Join(dir, "install.capture"), "")
	t.Cleanup(install.cancel) // a proxy a failure left listening
	if err := wp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := wp.Install(ctx, "Captured", "admin", "captured-password", "admin@example.org"); err != nil {
		t.Fatal(err)
	}
	install.stop(t)
	t.Logf("WordPress started and installed in %v", time.Since(step).Round(time.Millisecond))
	step = time.Now()
	// WordPress 6.1's installer warns of two undefined variables on PHP 8.2
	installed := map[string]bool{}
	for _, e := range wp.LogErrors() {
		installed[e] = true
	}
	p := startProxy(t, listen, to, out, capture.DumpTake)
	t.Cleanup(p.cancel)
	said := visit(t, wp.URL, "admin", "captured-password")
	for _, e := range wp.LogErrors() {
		if !installed[e] {
			t.Errorf("PHP logged through the proxy: %s", e)
		}
	}
	if err := wp.Stop(); err != nil {
		t.Fatal(err)
	}
	p.stop(t)
	t.Logf("WordPress through the proxy in %v: %s; %s", time.Since(step).Round(time.Millisecond), strings.Join(said, ", "), strings.TrimSpace(p.log.String()))
}

// visit is a writer and readers of a blog: the admin logs in and, as
// the block editor does, writes three posts, their categories and two
// comments over the
// REST API with the nonce of the login's cookie; a visitor comments
// through the form; readers see the pages.
func visit(t *testing.T, base, user, password string) []string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: time.Minute}
	var said []string
	do := func(req *http.Request) string {
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", req.Method, req.URL.RequestURI(), err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		said = append(said, fmt.Sprintf("%s %s: %d", req.Method, req.URL.RequestURI(), resp.StatusCode))
		if resp.StatusCode >= 400 {
			t.Fatalf("%s %s: %s: %.300s", req.Method, req.URL.RequestURI(), resp.Status, b)
		}
		return string(b)
	}
	get := func(path string) string {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		return do(req)
	}
	post := func(path string, form url.Values) string {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return do(req)
	}
	get("/")
	get("/wp-login.php") // its test cookie, which the login asks for
	post("/wp-login.php", url.Values{"log": {user}, "pwd": {password}, "wp-submit": {"Log In"}, "testcookie": {"1"}, "redirect_to": {base + "/wp-admin/"}})
	nonce := strings.TrimSpace(get("/wp-admin/admin-ajax.php?action=rest-nonce"))
	if nonce == "" || nonce == "0" {
		t.Fatalf("no REST nonce after the login (%q): %s", nonce, strings.Join(said, ", "))
	}
	rest := func(route string, body map[string]any) string {
		js, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, base+"/?rest_route="+route, bytes.NewReader(js))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-WP-Nonce", nonce)
		var made struct{ ID int }
		if err := json.Unmarshal([]byte(do(req)), &made); err != nil || made.ID == 0 {
			t.Fatalf("POST %s made nothing (%v)", route, err)
		}
		return strconv.Itoa(made.ID)
	}
	// each post in a category of its own: WordPress lists a page's posts'
	// terms ordered by name only, so posts all "Uncategorized" would tie
	// and a replay could list them in another order than the capture's
	// (its drift says so: "other rows than the capture's")
	var posts []string
	for i, title := range []string{"First captured post", "Second captured post", "Third captured post"} {
		category := rest("/wp/v2/categories", map[string]any{"name": fmt.Sprintf("Category %d", i+1)})
		posts = append(posts, rest("/wp/v2/posts", map[string]any{"title": title, "status": "publish", "categories": []string{category},
			"content": fmt.Sprintf("<!-- wp:paragraph --><p>Post %d, written over the REST API &amp; captured <em>by the proxy</em>.</p><!-- /wp:paragraph -->", i+1)}))
	}
	// a visitor, without the login's cookie (the comment waits for
	// moderation), before the admin's comments: WordPress refuses a second
	// comment from one address within 15 s but the admin's
	admin := c.Jar
	c.Jar, _ = cookiejar.New(nil)
	post("/wp-comments-post.php", url.Values{"comment_post_ID": {posts[2]}, "author": {"A reader"}, "email": {"reader@example.org"},
		"url": {""}, "comment": {"A reader's comment, through the form"}, "comment_parent": {"0"}})
	c.Jar = admin
	for _, id := range posts[:2] {
		rest("/wp/v2/comments", map[string]any{"post": id, "content": "The author's comment on post " + id})
	}
	for _, id := range posts {
		get("/?p=" + id)
	}
	get("/")
	get("/?s=captured")
	get("/?feed=rss2")
	return said
}
