// Package mysqldump reads what mysqldump and mariadb-dump write: it splits
// a dump into statements (quotes, comments, conditional comments and
// DELIMITER changes understood) and parses CREATE TABLE well enough to
// move a table to another storage engine, saying what the engine cannot
// hold.
package mysqldump

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// Statement is one statement of a dump and the line it starts on.
type Statement struct {
	Text string
	Line int
}

// Scanner splits a dump into statements.
type Scanner struct {
	r         *bufio.Reader
	name      string
	line      int
	delimiter string
	stmt      Statement
	err       error
	// Bytes is how much of the input has been read, for progress.
	Bytes int64
}

// NewScanner reads statements from r; name is the file, for errors.
func NewScanner(r io.Reader, name string) *Scanner {
	return &Scanner{r: bufio.NewReaderSize(r, 1<<20), name: name, line: 1, delimiter: ";"}
}

// Statement is the last statement Scan read.
func (s *Scanner) Statement() Statement { return s.stmt }

// Err is what stopped Scan, nil at the end of the input.
func (s *Scanner) Err() error { return s.err }

// Scan reads the next statement; false at the end or on an error. Plain
// comments are dropped; conditional comments (/*!40101 … */) are kept, as
// the server reads them. A DELIMITER line changes the terminator (dumps
// of triggers and routines).
func (s *Scanner) Scan() bool {
	var b bytes.Buffer
	start := 0
	quote := byte(0)
	for {
		c, err := s.r.ReadByte()
		if err == io.EOF {
			return s.atEOF(quote, start, &b)
		}
		if err != nil {
			s.err = fmt.Errorf("%s: %w", s.name, err)
			return false
		}
		s.Bytes++
		if c == 0 {
			s.err = fmt.Errorf("%s:%d: a NUL byte: this is not a SQL dump", s.name, s.line)
			return false
		}
		if c == '\n' {
			s.line++
		}
		if quote != 0 {
			quote = s.inQuote(c, quote, &b)
			continue
		}
		if b.Len() == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			continue
		}
		if b.Len() == 0 {
			start = s.line
		}
		switch c {
		case '\'', '"', '`':
			quote = c
			b.WriteByte(c)
			continue
		case '-', '#', '/':
			skip, err := s.comment(c, &b)
			if err != nil {
				s.err = err
				return false
			}
			if skip {
				continue
			}
		}
		b.WriteByte(c)
		if done, ok := s.statementEnd(&b, start); done {
			return ok
		}
	}
}

// atEOF is Scan at the end of the input: the last statement, if it has
// one without its delimiter, or an error for a quote left open.
func (s *Scanner) atEOF(quote byte, start int, b *bytes.Buffer) bool {
	if quote != 0 {
		s.err = fmt.Errorf("%s:%d: a quoted string or name opened here is never closed", s.name, start)
		return false
	}
	if text := strings.TrimSpace(b.String()); text != "" {
		s.stmt = Statement{Text: text, Line: start}
		return true
	}
	return false
}

// inQuote takes byte c inside a quote (a backslash escapes the next byte
// but in a backquoted name) and returns the quote still open, 0 if c
// closed it.
func (s *Scanner) inQuote(c, quote byte, b *bytes.Buffer) byte {
	b.WriteByte(c)
	switch {
	case c == '\\' && quote != '`':
		n, err := s.r.ReadByte()
		if err == nil {
			s.Bytes++
			if n == '\n' {
				s.line++
			}
			b.WriteByte(n)
		}
	case c == quote:
		return 0
	}
	return quote
}

// comment skips the comment c starts (-- , #, /* */) and says so; a
// conditional comment's /* goes into b, its text read as the statement's.
func (s *Scanner) comment(c byte, b *bytes.Buffer) (skip bool, err error) {
	switch c {
	case '-':
		if p, _ := s.r.Peek(2); len(p) == 2 && p[0] == '-' && (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r') {
			s.skipLine()
			return true, nil
		}
	case '#':
		s.skipLine()
		return true, nil
	case '/':
		if p, _ := s.r.Peek(1); len(p) == 1 && p[0] == '*' {
			s.r.ReadByte()
			s.Bytes++
			if bang, _ := s.r.Peek(1); len(bang) == 1 && bang[0] == '!' {
				b.WriteString("/*")
				return true, nil
			}
			return true, s.skipComment()
		}
	}
	return false, nil
}

// statementEnd acts on a DELIMITER line or the delimiter ending the
// statement in b: done when Scan returns, with ok as its answer.
func (s *Scanner) statementEnd(b *bytes.Buffer, start int) (done, ok bool) {
	if b.Len() == 9 && strings.EqualFold(b.String(), "DELIMITER") {
		d := strings.TrimSpace(s.readLine())
		if d == "" {
			s.err = fmt.Errorf("%s:%d: DELIMITER without a delimiter", s.name, s.line-1)
			return true, false
		}
		s.delimiter = d
		b.Reset()
		return false, false
	}
	if bytes.HasSuffix(b.Bytes(), []byte(s.delimiter)) {
		text := strings.TrimSpace(strings.TrimSuffix(b.String(), s.delimiter))
		if text == "" {
			b.Reset()
			return false, false
		}
		s.stmt = Statement{Text: text, Line: start}
		return true, true
	}
	return false, false
}

func (s *Scanner) readLine() string {
	l, _ := s.r.ReadString('\n')
	s.Bytes += int64(len(l))
	if strings.HasSuffix(l, "\n") {
		s.line++
	}
	return l
}

func (s *Scanner) skipLine() { s.readLine() }

func (s *Scanner) skipComment() error {
	open := s.line
	prev := byte(0)
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return fmt.Errorf("%s:%d: a comment opened here is never closed", s.name, open)
		}
		s.Bytes++
		if c == '\n' {
			s.line++
		}
		if prev == '*' && c == '/' {
			return nil
		}
		prev = c
	}
}
