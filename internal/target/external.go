package target

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// External is a server the user runs; shootout only connects to it.
type External struct {
	flavor  dialect.Flavor
	engine  string
	dsn     string // with the password: never printed or stored
	display string // the URL with the password masked
	via     string // how clients reach it: "tcp HOST" or "unix SOCKET"
	ep      proto.Endpoint
}

func (e *External) transport() string { return e.via }

// ParseExternal reads mysql://user:pass@host:port/db?engine=E,
// postgres://user:pass@host:port/db, or a native server's URL (redis://,
// tarantool://, memcached://). Only this machine's loopback addresses are
// accepted: shootout puts load only on servers here.
func ParseExternal(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("target URL %s: %v", Redact(raw), redactErr(err, raw))
	}
	e := &External{display: Redact(raw)}
	host := u.Hostname()
	q := u.Query()
	socket := q.Get("socket")
	if socket == "" && !isLoopback(host) {
		return nil, fmt.Errorf("target %s: host %q is not a loopback address; shootout only loads servers on this machine (127.0.0.1, ::1, localhost or ?socket=PATH)", e.display, host)
	}
	e.via = "tcp " + host
	if socket != "" {
		e.via = "unix " + socket
	}
	switch u.Scheme {
	case "redis", "tarantool", "memcached":
		return parseNativeExternal(u, e.display)
	}
	pass, _ := u.User.Password()
	db := strings.TrimPrefix(u.Path, "/")
	switch u.Scheme {
	case "mysql", "mariadb":
		e.flavor = dialect.MySQL
		e.engine = strings.ToLower(q.Get("engine"))
		if e.engine == "" {
			e.engine = "innodb"
		}
		if _, ok := mariadbEngines[e.engine]; !ok {
			return nil, fmt.Errorf("target %s: engine=%s is not one of innodb, rocksdb, aria, myisam, memory", e.display, e.engine)
		}
		if db == "" {
			db = "sbtest"
		}
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.DBName = u.User.Username(), pass, db
		cfg.InterpolateParams = true // as for the managed MariaDB (mariadb.go)
		e.ep = proto.Endpoint{Protocol: proto.SQL, User: cfg.User, Password: pass, Database: db, External: true}
		if socket != "" {
			cfg.Net, cfg.Addr = "unix", socket
			e.ep.Network, e.ep.Address = "unix", socket
		} else {
			port := u.Port()
			if port == "" {
				port = "3306"
			}
			cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
			e.ep.Network, e.ep.Address = "tcp", cfg.Addr
		}
		e.dsn = cfg.FormatDSN()
	case "postgres", "postgresql":
		e.flavor = dialect.Postgres
		if q.Has("engine") {
			return nil, fmt.Errorf("target %s: engine= is for MariaDB URLs only", e.display)
		}
		if err := checkPostgresHosts(raw, e.display); err != nil {
			return nil, err
		}
		e.dsn = raw
	default:
		return nil, fmt.Errorf("target %s: scheme %q is not mysql://, postgres://, redis://, tarantool:// or memcached://", e.display, u.Scheme)
	}
	return e, nil
}

// checkPostgresHosts applies the loopback rule to every host pgx would
// dial: the URL goes to pgx whole, and its ?host= and ?port=, a service
// (?service=) or PGHOST can name hosts that URL's authority does not.
// A unix socket directory is on this machine.
func checkPostgresHosts(raw, display string) error {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return fmt.Errorf("target %s: %s", display, scrubSecrets(err.Error(), raw))
	}
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if !strings.HasPrefix(h, "/") && !isLoopback(h) {
			return fmt.Errorf("target %s: host %q (from the URL's host, ?host=, ?service= or PGHOST) is not a loopback address; shootout only loads servers on this machine (127.0.0.1, ::1, localhost or a unix socket directory)", display, h)
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Redact masks the password of a URL-shaped target name.
func Redact(raw string) string { return proto.Redact(raw) }

// redactErr removes a password that url.Parse echoed into its error.
func redactErr(err error, raw string) string {
	return strings.ReplaceAll(err.Error(), raw, Redact(raw))
}

// scrubSecrets masks every password the URL raw carries in msg.
func scrubSecrets(msg, raw string) string {
	for _, p := range proto.Secrets(raw) {
		msg = strings.ReplaceAll(msg, p, "***")
	}
	return msg
}

func (e *External) Name() string { return e.display }
func (e *External) Dialect() dialect.Dialect {
	return dialect.Dialect{Flavor: e.flavor, Engine: e.engine}
}
func (e *External) Available() error     { return nil }
func (e *External) Protocol() proto.Name { return proto.SQL }
func (e *External) Embedded() bool       { return false }
func (e *External) Managed() bool        { return false }

type externalInstance struct {
	e  *External
	db *sql.DB
}

// Start connects and checks the credentials; it starts nothing.
func (e *External) Start(ctx context.Context, opt StartOptions) (Instance, error) {
	driver := "mysql"
	if e.flavor == dialect.Postgres {
		driver = "pgx"
	}
	db, err := openSQL(driver, e.dsn)
	if err != nil {
		return nil, fmt.Errorf("target %s: %s", e.display, e.scrub(err))
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("target %s: cannot connect: %s", e.display, e.scrub(err))
	}
	db.SetMaxIdleConns(dialect.IdleConns)
	if len(opt.Settings) > 0 {
		logf(opt.Log, "note: settings for %s are not applied: shootout does not reconfigure a server it did not start", e.display)
	}
	return &externalInstance{e: e, db: db}, nil
}

// scrub keeps a driver error that quotes the DSN from leaking the password.
func (e *External) scrub(err error) string {
	msg := scrubSecrets(err.Error(), e.dsn)
	if e.flavor == dialect.MySQL {
		if cfg, perr := mysql.ParseDSN(e.dsn); perr == nil && cfg.Passwd != "" {
			msg = strings.ReplaceAll(msg, cfg.Passwd, "***")
		}
	}
	return msg
}

func (x *externalInstance) Dialect() dialect.Dialect { return x.e.Dialect() }
func (x *externalInstance) DB() *sql.DB              { return x.db }
func (x *externalInstance) PIDs() []int              { return nil }

// Endpoint is where the URL says the server is; a PostgreSQL URL goes to
// its driver whole, so its endpoint has the dialect and no address.
func (x *externalInstance) Endpoint() proto.Endpoint {
	ep := x.e.ep
	ep.Protocol, ep.External, ep.Dialect = proto.SQL, true, x.e.Dialect()
	return ep
}
func (x *externalInstance) DataDir() string            { return "" }
func (x *externalInstance) Applied() map[string]string { return nil }

func (x *externalInstance) Version(ctx context.Context) (string, error) {
	q := "SELECT VERSION()"
	if x.e.flavor == dialect.Postgres {
		q = "SHOW server_version"
	}
	var v string
	err := x.db.QueryRowContext(ctx, q).Scan(&v)
	return v, err
}

func (x *externalInstance) Settings(ctx context.Context) (map[string]string, error) {
	if x.e.flavor == dialect.Postgres {
		return querySettings(ctx, x.db, "SELECT name, setting FROM pg_settings")
	}
	return querySettings(ctx, x.db, "SHOW GLOBAL VARIABLES")
}

// Settle does nothing on a server shootout does not own.
func (x *externalInstance) Settle(ctx context.Context) (string, error) { return "", nil }

// WriteBack does nothing either: its disk is not measured.
func (x *externalInstance) WriteBack(ctx context.Context, limit time.Duration) (WriteBackResult, error) {
	return WriteBackResult{Skipped: "external server: nothing written back (shootout does not own it)"}, nil
}

func (x *externalInstance) Stop(ctx context.Context) error { return x.db.Close() }
