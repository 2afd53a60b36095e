package proto

import "strings"

// Redact masks the password of a URL-shaped server name, so that no
// password lands in a name, a file name or a log.
func Redact(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	rest := raw[i+3:]
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	cred := rest[:at]
	if c := strings.Index(cred, ":"); c >= 0 {
		cred = cred[:c] + ":***"
	}
	return raw[:i+3] + cred + rest[at:]
}
