package proto

import (
	"net/url"
	"strings"
)

// secretKeys are the URL query keys whose value is a secret: libpq and pgx
// take password and sslpassword (the client key's passphrase) from the
// query as well as from user:pass@. go-sql-driver/mysql reads its password
// only from user:pass@, and the mysql:// form passes no query key to it.
var secretKeys = map[string]bool{"password": true, "sslpassword": true}

// Redact masks the passwords of a URL-shaped server name, in user:pass@
// and in the query, so that no password lands in a name, a file name or a
// log.
func Redact(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest, query, hasQuery := strings.Cut(raw[i+3:], "?")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		cred := rest[:at]
		if c := strings.Index(cred, ":"); c >= 0 {
			cred = cred[:c] + ":***"
		}
		rest = cred + rest[at:]
	}
	if !hasQuery {
		return raw[:i+3] + rest
	}
	return raw[:i+3] + rest + "?" + redactQuery(query)
}

// redactQuery masks secret values in place, keeping the query's order and
// spelling otherwise, so the name still reads as the URL the user gave.
func redactQuery(query string) string {
	query, frag, hasFrag := strings.Cut(query, "#")
	parts := strings.Split(query, "&")
	for j, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if key, err := url.QueryUnescape(k); err == nil {
			k = key
		}
		if ok && secretKeys[strings.ToLower(k)] {
			parts[j] = p[:strings.Index(p, "=")] + "=***"
		}
	}
	query = strings.Join(parts, "&")
	if hasFrag {
		query += "#" + frag
	}
	return query
}

// Secrets lists the passwords a URL carries (user:pass@ and the query's
// secret keys), for scrubbing an error that quotes them.
func Secrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for k, vs := range u.Query() {
		if secretKeys[strings.ToLower(k)] {
			for _, v := range vs {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
