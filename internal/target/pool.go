package target

import (
	"database/sql"
	"fmt"
	"net/url"

	"github.com/go-sql-driver/mysql"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// OpenPool is a pool of connections to the SQL server at ep, made as the
// target's own instance makes its pool (the same driver options), for a
// process that has only the endpoint: an agent (--agents). conn are the
// settings each connection runs when it opens (SQLite's pragmas, from
// ConnSettings; nil for a server).
func OpenPool(ep proto.Endpoint, conn map[string]string) (*sql.DB, error) {
	var db *sql.DB
	var err error
	switch ep.Dialect.Flavor {
	case dialect.MySQL:
		cfg := mysql.NewConfig()
		cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = ep.User, ep.Password, ep.Network, ep.Address, ep.Database
		// as mariadbInstance's pool: arguments interpolated as Rails sends them
		cfg.InterpolateParams = true
		db, err = sql.Open("mysql", cfg.FormatDSN())
	case dialect.Postgres:
		host, port := ep.HostPort()
		if host == "" {
			return nil, fmt.Errorf("postgres endpoint %s: a tcp address is needed", ep)
		}
		u := url.URL{Scheme: "postgres", User: url.UserPassword(ep.User, ep.Password), Host: fmt.Sprintf("%s:%d", host, port),
			Path: "/" + ep.Database, RawQuery: "sslmode=disable"}
		db, err = openSQL("pgx", u.String())
	case dialect.SQLite:
		if ep.Network != "file" {
			return nil, fmt.Errorf("sqlite endpoint %s: a database file is needed", ep)
		}
		return openSQLite(ep.Address, conn)
	default:
		return nil, fmt.Errorf("endpoint %s: no SQL dialect (flavor %q)", ep, ep.Dialect.Flavor)
	}
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(dialect.IdleConns)
	return db, nil
}

// ConnSettings are what each of inst's connections runs when it opens,
// for a pool OpenPool makes elsewhere: SQLite's pragmas (most are per
// connection); nil for a server, whose settings are its own.
func ConnSettings(inst Instance) map[string]string {
	if s, ok := inst.(*sqliteInstance); ok {
		return s.applied
	}
	return nil
}
