package capture

import "strings"

// The protocols a capture speaks.
const (
	ProtoMySQL    = "mysql" // MariaDB and MySQL
	ProtoPostgres = "postgresql"
)

// Kinds of command.
const (
	KindQuery    = "query"
	KindPrepare  = "prepare"
	KindExecute  = "execute"
	KindClose    = "close"
	KindInitDB   = "init_db"
	KindBegin    = "begin"
	KindCommit   = "commit"
	KindRollback = "rollback"
	KindSet      = "set"
	KindPing     = "ping"
	KindReset    = "reset"
	KindOther    = "other"
)

// TextKind tells a text query's kind from its first word: a replay keeps
// transactions and the session's database by these, whatever the
// protocol carried them as.
func TextKind(text string) string {
	words := strings.Fields(strings.ToLower(stripLeadingComments(text)))
	if len(words) == 0 {
		return KindQuery
	}
	w := strings.TrimSuffix(words[0], ";")
	switch w {
	case "begin", "start":
		if w == "start" && (len(words) < 2 || !strings.HasPrefix(words[1], "transaction")) {
			return KindQuery
		}
		return KindBegin
	case "commit", "end":
		return KindCommit
	case "rollback", "abort":
		// ROLLBACK TO SAVEPOINT ends no transaction
		if len(words) > 1 && strings.HasPrefix(words[1], "to") {
			return KindQuery
		}
		return KindRollback
	case "use":
		return KindInitDB
	case "set":
		return KindSet
	}
	return KindQuery
}

func stripLeadingComments(s string) string {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "/*") && !strings.HasPrefix(s, "/*!"):
			end := strings.Index(s, "*/")
			if end < 0 {
				return ""
			}
			s = s[end+2:]
		case strings.HasPrefix(s, "--"):
			end := strings.IndexByte(s, '\n')
			if end < 0 {
				return ""
			}
			s = s[end+1:]
		default:
			return s
		}
	}
}
