package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shootout/internal/child"
	"shootout/internal/metrics"
	"shootout/internal/proto"
	"shootout/internal/target"
)

// WordPress is Debian's wordpress (6.1) served by a php-fpm and an nginx
// of shootout's own, each with its own configuration in a private
// directory: the second real application whose SQL the capture proxy
// records (docs/capture.md). Nothing is written under /etc or
// /var/lib/wordpress: Debian's wp-config.php reads
// /etc/wordpress/config-HOST.php, so the pool's auto_prepend_file
// defines ABSPATH as a docroot of its own (symbolic links to
// /usr/share/wordpress beside a wp-config.php of its own), which
// wp-load.php then reads instead.

const wordpressRoot = "/usr/share/wordpress"

// WordPressInstallHint is the line that installs what WordPress needs
// here (php, so that apt takes php-fpm for WordPress's PHP, not Apache's
// module).
const WordPressInstallHint = "apt-get install -y --no-install-recommends wordpress wordpress-theme-twentytwentythree php php-fpm php-mysql nginx"

// php-fpm is asked of by its binary: Debian's package is named after
// the PHP version (php8.2-fpm)
var wordpressPackages = []string{"wordpress", "wordpress-theme-twentytwentythree", "php-mysql", "nginx"}

// WordPressAvailable says what is missing to run WordPress here, with
// the install line, or nil.
func WordPressAvailable() error {
	var missing []string
	for _, p := range wordpressPackages {
		out, err := child.Output(exec.Command("dpkg-query", "-W", "-f=${Status}", p))
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "installed") {
			missing = append(missing, p)
		}
	}
	if _, err := phpFPM(); err != nil {
		missing = append(missing, "php-fpm")
	}
	if len(missing) > 0 {
		return fmt.Errorf("WordPress needs %s; fix: %s", strings.Join(missing, ", "), WordPressInstallHint)
	}
	return nil
}

// phpFPM is Debian's php-fpm binary, named after its PHP version.
func phpFPM() (string, error) {
	found, _ := filepath.Glob("/usr/sbin/php-fpm*")
	if len(found) == 0 {
		return "", errors.New("no /usr/sbin/php-fpm*")
	}
	sort.Strings(found)
	return found[len(found)-1], nil
}

// WordPressOptions are what WordPress is given.
type WordPressOptions struct {
	WorkDir string // private: its configuration, sockets, logs
	// Workers is php-fpm's children, each serving one request at a time
	Workers int
	Conn    proto.Endpoint        // a MariaDB/MySQL one; its password goes to wp-config.php only
	Wrap    func(*exec.Cmd) error // into a cell's cgroups
}

// WordPress is one private WordPress: its php-fpm and nginx.
type WordPress struct {
	opt        WordPressOptions
	docroot    string // ABSPATH: links to wordpressRoot and its own wp-config.php
	socket     string // php-fpm's
	token      string // nginx's answer that it is ours on the port
	fpm, nginx *target.Process
	URL        string
	Version    string
}

// NewWordPress writes the docroot and php-fpm's configuration.
func NewWordPress(opt WordPressOptions) (*WordPress, error) {
	if err := WordPressAvailable(); err != nil {
		return nil, err
	}
	w := &WordPress{opt: opt, docroot: filepath.Join(opt.WorkDir, "wordpress") + "/", socket: filepath.Join(opt.WorkDir, "php-fpm.sock")}
	// a unix socket's path has room for 107 bytes
	if len(w.socket) > 100 {
		return nil, fmt.Errorf("WordPress's work directory %s is too long for php-fpm's socket in it", opt.WorkDir)
	}
	var b [8]byte
	rand.Read(b[:])
	w.token = hex.EncodeToString(b[:])
	if err := w.writeDocroot(); err != nil {
		return nil, err
	}
	if err := w.writeFPMConfig(); err != nil {
		return nil, err
	}
	if v, err := child.Output(exec.Command("dpkg-query", "-W", "-f=${Version}", "wordpress")); err == nil {
		w.Version = "wordpress " + strings.TrimSpace(string(v)) + ", php-fpm " + strconv.Itoa(max(opt.Workers, 1)) + " children, nginx"
	}
	return w, nil
}

// writeDocroot links every entry of Debian's docroot but wp-config.php,
// which is its own (readable by root only: it holds the password).
func (w *WordPress) writeDocroot() error {
	if err := os.MkdirAll(w.docroot, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(wordpressRoot)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "wp-config.php" {
			continue
		}
		if err := os.Symlink(filepath.Join(wordpressRoot, e.Name()), filepath.Join(w.docroot, e.Name())); err != nil {
			return err
		}
	}
	cfg, err := wpConfig(w.opt.Conn)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.docroot, "wp-config.php"), []byte(cfg), 0o600)
}

// wpConfig is WordPress's configuration: the database, fresh salts, and
// nothing that would send a request the user did not (no cron spawned
// over HTTP, no update checks, no requests out of the machine).
func wpConfig(c proto.Endpoint) (string, error) {
	var host string
	switch c.Network {
	case "tcp":
		host = c.Address
	case "unix":
		host = "localhost:" + c.Address
	default:
		return "", fmt.Errorf("WordPress needs a MariaDB/MySQL server over TCP or a unix socket, not %q", c.Network)
	}
	var sb strings.Builder
	sb.WriteString("<?php\n")
	def := func(name, value string) { fmt.Fprintf(&sb, "define('%s', %s);\n", name, value) }
	for _, kv := range [][2]string{{"DB_NAME", c.Database}, {"DB_USER", c.User}, {"DB_PASSWORD", c.Password}, {"DB_HOST", host},
		{"DB_CHARSET", "utf8mb4"}, {"DB_COLLATE", ""}, {"WP_CONTENT_DIR", wordpressRoot + "/wp-content"}} {
		def(kv[0], phpString(kv[1]))
	}
	for _, k := range []string{"AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"} {
		var b [32]byte
		rand.Read(b[:])
		def(k, phpString(hex.EncodeToString(b[:])))
	}
	for _, k := range []string{"DISABLE_WP_CRON", "AUTOMATIC_UPDATER_DISABLED", "WP_HTTP_BLOCK_EXTERNAL"} {
		def(k, "true")
	}
	sb.WriteString("$table_prefix = 'wp_';\nrequire_once ABSPATH . 'wp-settings.php';\n")
	return sb.String(), nil
}

// phpString is s as a single-quoted PHP literal.
func phpString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// writeFPMConfig is php-fpm's: in the foreground, its own pid, log and
// socket, one static pool that prepends the definition of ABSPATH.
func (w *WordPress) writeFPMConfig() error {
	dir := w.opt.WorkDir
	prepend := filepath.Join(dir, "abspath.php")
	if err := os.WriteFile(prepend, []byte("<?php define('ABSPATH', "+phpString(w.docroot)+");\n"), 0o644); err != nil {
		return err
	}
	conf := fmt.Sprintf(`[global]
pid = %[1]s/php-fpm.pid
error_log = %[1]s/php-fpm.log
daemonize = no
[wordpress]
user = root
group = root
listen = %[2]s
listen.mode = 0600
pm = static
pm.max_children = %[3]d
catch_workers_output = yes
php_admin_value[auto_prepend_file] = %[4]s
php_admin_value[error_log] = %[1]s/php-errors.log
php_admin_flag[log_errors] = on
`, dir, w.socket, max(w.opt.Workers, 1), prepend)
	return os.WriteFile(filepath.Join(dir, "php-fpm.conf"), []byte(conf), 0o644)
}

// nginxConfig serves Debian's docroot on port with PHP through php-fpm's
// socket, as one process in the foreground (no worker outlives it), its
// logs and temporary files in the work directory; /TOKEN answers the
// token, so a start knows the port is its own.
func (w *WordPress) nginxConfig(port int) string {
	dir := w.opt.WorkDir
	return fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/nginx.log;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	access_log %[1]s/access.log;
	client_body_temp_path %[1]s/nginx-tmp/body;
	fastcgi_temp_path %[1]s/nginx-tmp/fastcgi;
	proxy_temp_path %[1]s/nginx-tmp/proxy;
	uwsgi_temp_path %[1]s/nginx-tmp/uwsgi;
	scgi_temp_path %[1]s/nginx-tmp/scgi;
	server {
		listen 127.0.0.1:%[2]d;
		root %[3]s;
		index index.php;
		location = /%[4]s { return 200 "%[4]s"; }
		location / { try_files $uri $uri/ /index.php?$args; }
		location ~ \.php$ {
			include /etc/nginx/fastcgi_params;
			# Debian's gives $host, without the port: WordPress's installer
			# would make the site's address port 80's (the last one counts)
			fastcgi_param HTTP_HOST $host:$server_port;
			fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
			fastcgi_pass unix:%[5]s;
		}
	}
}
`, dir, port, wordpressRoot, w.token, w.socket)
}

// Start starts php-fpm, then nginx on a free loopback port (another if
// the port was taken before nginx could bind it), and waits until both
// answer.
func (w *WordPress) Start(ctx context.Context) error {
	if err := w.startFPM(ctx); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			w.Stop()
			return fmt.Errorf("find a free port for nginx: %w", err)
		}
		err = w.startNginx(ctx, port)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			w.Stop()
			return err
		}
	}
}

// server starts a server process of WordPress's: in its own process
// group, with a SIGTERM on shootout's death (php-fpm's master then
// stops its children), inside the cell's groups.
func (w *WordPress) server(logName, name string, args ...string) (*target.Process, string, error) {
	logPath := filepath.Join(w.opt.WorkDir, logName)
	out, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, "", err
	}
	defer out.Close()
	cmd := target.ServerCmd(nil, name, args...)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.opt.WorkDir, out, out
	if w.opt.Wrap != nil {
		if err := w.opt.Wrap(cmd); err != nil {
			return nil, "", err
		}
	}
	proc, err := target.StartProcess(cmd)
	if err != nil {
		return nil, "", fmt.Errorf("start %s: %w", filepath.Base(name), err)
	}
	return proc, logPath, nil
}

// startFPM starts php-fpm (-R: as root, as shootout's other servers run)
// and waits until its socket accepts.
func (w *WordPress) startFPM(ctx context.Context) error {
	bin, err := phpFPM()
	if err != nil {
		return err
	}
	proc, logPath, err := w.server("php-fpm.out", bin, "--nodaemonize", "-R", "-y", filepath.Join(w.opt.WorkDir, "php-fpm.conf"))
	if err != nil {
		return err
	}
	w.fpm = proc
	accepts := func(ctx context.Context) error {
		c, err := (&net.Dialer{}).DialContext(ctx, "unix", w.socket)
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := proc.WaitReady(ctx, accepts, "php-fpm", logPath, time.Minute); err != nil {
		w.Stop()
		return fmt.Errorf("WordPress's php-fpm: %w (its log: %s)", err, target.LogTail(filepath.Join(w.opt.WorkDir, "php-fpm.log"), 4))
	}
	return nil
}

// startNginx starts nginx on port and waits until the port answers
// nginx's token: an answer alone could come from whoever took the port.
func (w *WordPress) startNginx(ctx context.Context, port int) error {
	dir := w.opt.WorkDir
	if err := os.MkdirAll(filepath.Join(dir, "nginx-tmp"), 0o700); err != nil {
		return err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(w.nginxConfig(port)), 0o644); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "nginx.log")
	var from int64
	if st, err := os.Stat(logPath); err == nil {
		from = st.Size()
	}
	// -e: the log before the configuration is read, else /var/log/nginx's
	proc, _, err := w.server("nginx.out", "/usr/sbin/nginx", "-e", logPath, "-p", dir, "-c", conf)
	if err != nil {
		return err
	}
	w.nginx = proc
	w.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	err = proc.WaitReady(ctx, w.answersToken, "nginx", logPath, time.Minute)
	if err == nil {
		return nil
	}
	taken := strings.Contains(logSince(logPath, from), "Address already in use")
	w.nginx.Stop(syscall.SIGKILL, 10*time.Second)
	w.nginx = nil
	if taken {
		return fmt.Errorf("nginx on 127.0.0.1:%d: %w", port, errPortTaken)
	}
	return fmt.Errorf("WordPress's nginx on %s: %w", w.URL, err)
}

func (w *WordPress) answersToken(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.URL+"/"+w.token, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK || string(b) != w.token {
		return fmt.Errorf("%s answered %s, not nginx's token", w.URL, resp.Status)
	}
	return nil
}

// Install runs WordPress's own installer (wp-admin/install.php's second
// step, as its form posts it): its tables, the site and its admin.
func (w *WordPress) Install(ctx context.Context, title, user, password, email string) error {
	form := url.Values{"weblog_title": {title}, "user_name": {user}, "admin_password": {password}, "admin_password2": {password},
		"pw_weak": {"on"}, "admin_email": {email}, "blog_public": {"0"}, "language": {""}, "Submit": {"Install WordPress"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL+"/wp-admin/install.php?step=2", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("WordPress's installer: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "<h1>Success!</h1>") {
		return fmt.Errorf("WordPress's installer answered %s without its success page: %.300s; PHP's log: %s",
			resp.Status, b, strings.Join(w.LogErrors(), " | "))
	}
	return nil
}

// PIDs are nginx's and php-fpm's master and children.
func (w *WordPress) PIDs() []int {
	var pids []int
	for _, p := range []*target.Process{w.nginx, w.fpm} {
		if p != nil {
			pids = append(append(pids, p.PID()), metrics.Descendants(p.PID())...)
		}
	}
	return pids
}

// LogErrors are the errors and warnings PHP logged, each with how often.
func (w *WordPress) LogErrors() []string {
	counts := map[string]int{}
	var order []string
	for _, line := range strings.Split(logSince(filepath.Join(w.opt.WorkDir, "php-errors.log"), 0), "\n") {
		// "[28-Nov-2026 08:41:16 UTC] PHP Warning:  ..."
		if i := strings.Index(line, "] PHP "); i >= 0 {
			line = line[i+2:]
		} else {
			continue
		}
		if counts[line] == 0 {
			order = append(order, line)
		}
		counts[line]++
	}
	out := make([]string, len(order))
	for i, l := range order {
		out[i] = fmt.Sprintf("%d× %s", counts[l], l)
	}
	return out
}

// Stop ends nginx, then php-fpm (SIGQUIT: each finishes its requests;
// after 30 s SIGKILL to its process group). The work directory stays,
// its owner's to remove.
func (w *WordPress) Stop() error {
	var errs []error
	if w.nginx != nil {
		if err := w.nginx.Stop(syscall.SIGQUIT, 30*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("nginx %w", err))
		}
		w.nginx = nil
	}
	if w.fpm != nil {
		if err := w.fpm.Stop(syscall.SIGQUIT, 30*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("php-fpm %w", err))
		}
		w.fpm = nil
	}
	return errors.Join(errs...)
}
