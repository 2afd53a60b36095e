package capture

import (
	"regexp"
	"strings"
)

// Fingerprint is a statement with its literals replaced by ?, as
// pt-query-digest's fingerprint: comments gone, lower case, one space
// between words, numbers, strings and placeholders ($1) as ?, IN and
// VALUES lists as (?+), LIMIT's offset folded in. protocol tells what a
// double-quoted word is (a string on MySQL, a name on PostgreSQL) and
// whether a backslash escapes inside a string.
//
// Written here: the Go libraries that normalise SQL (vitess's sqlparser)
// parse one dialect's whole grammar and give up on the other's, and a
// capture must group every statement, parsable or not.
func Fingerprint(protocol, text string) string {
	pg := protocol == ProtoPostgres
	var b strings.Builder
	s := text
	space := false
	emit := func(t string) {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(t)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			space = true
			i++
		case strings.HasPrefix(s[i:], "/*"):
			// MySQL's executable comments (/*!50000 ... */) are statement text
			if !pg && strings.HasPrefix(s[i:], "/*!") {
				emit("/*!")
				i += 3
				continue
			}
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 4
			}
			space = true
		case strings.HasPrefix(s[i:], "--") || (c == '#' && !pg):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				i = len(s)
			} else {
				i += end
			}
			space = true
		case c == '\'' || (c == '"' && !pg):
			i = skipString(s, i, c, !pg)
			emit("?")
		case pg && (c == 'e' || c == 'E') && i+1 < len(s) && s[i+1] == '\'' && !wordBefore(s, i):
			i = skipString(s, i+1, '\'', true)
			emit("?")
		case pg && c == '$' && i+1 < len(s) && isDigit(s[i+1]):
			i = skipDigits(s, i+1)
			emit("?")
		case pg && c == '$':
			j, ok := skipDollar(s, i)
			if !ok {
				emit("$")
				i++
				continue
			}
			i = j
			emit("?")
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			i = skipNumber(s, i)
			emit("?")
		case c == '`' || (c == '"' && pg):
			j := skipString(s, i, c, false)
			emit(strings.ToLower(s[i:j]))
			i = j
		case isWord(c):
			j := i
			for j < len(s) && (isWord(s[j]) || isDigit(s[j]) || s[j] == '$') {
				j++
			}
			emit(strings.ToLower(s[i:j]))
			i = j
		default:
			emit(string(c))
			i++
		}
	}
	return foldLists(b.String())
}

// skipString returns the index after the quoted text starting at s[i]; a
// doubled quote stays inside, as does a backslash-escaped one where
// backslashes escape.
func skipString(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

// skipDollar skips PostgreSQL's $tag$ ... $tag$ string.
func skipDollar(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && (isWord(s[j]) || isDigit(s[j])) {
		j++
	}
	if j >= len(s) || s[j] != '$' {
		return i, false
	}
	tag := s[i : j+1]
	end := strings.Index(s[j+1:], tag)
	if end < 0 {
		return len(s), true
	}
	return j + 1 + end + len(tag), true
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// skipNumber skips 12, 1.5, .5, 1e-3 and 0x1F.
func skipNumber(s string, i int) int {
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		j := i + 2
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
		return j
	}
	j := skipDigits(s, i)
	if j < len(s) && s[j] == '.' {
		j = skipDigits(s, j+1)
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			j = skipDigits(s, k)
		}
	}
	return j
}

func wordBefore(s string, i int) bool { return i > 0 && (isWord(s[i-1]) || isDigit(s[i-1])) }
func isDigit(c byte) bool             { return c >= '0' && c <= '9' }
func isWord(c byte) bool {
	return c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '@'
}

var (
	// a sign before a number is part of the literal where no value stands
	// before it (= -5, (-1, ...)
	negative = regexp.MustCompile(`([=<>(,]|\b(?:in|and|or|not|values|select|when|then|else|between|like|limit|offset))( ?)- ?\?`)
	spaced   = regexp.MustCompile(` ?([(,]) ?| (\))`)
	lists    = regexp.MustCompile(`\b(in|values?)(?:,?\((?:\?|,|null)*\))+`)
	limit    = regexp.MustCompile(`\blimit \?(?:,\?| offset \?)?`)
)

func foldLists(q string) string {
	q = negative.ReplaceAllString(q, "$1$2?")
	q = spaced.ReplaceAllString(q, "$1$2")
	q = lists.ReplaceAllString(q, "$1(?+)")
	q = limit.ReplaceAllString(q, "limit ?")
	q = strings.ReplaceAll(q, ",", ", ")
	return strings.TrimSuffix(strings.TrimSpace(q), ";")
}
