package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The screens a new user reads first fit a 100-column terminal.
func TestScreensFitIn100Columns(t *testing.T) {
	cases := []struct {
		args []string
		todo string // why a screen may still be too wide, until it is fixed
	}{
		{args: []string{"targets"}},
		{args: []string{"--help"}},
		{args: []string{"run", "--help"}},
		{args: []string{"calibrate", "--help"}},
		{args: []string{"run", "--study", "redmine", "--dry-run"}},
		{args: []string{"run", "--study", "default", "--dry-run"}},
		{args: []string{"studies"}},
	}
	for _, c := range cases {
		stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		if long := linesOver(stdout+stderr, 100); len(long) > 0 {
			if c.todo != "" {
				t.Logf("%v: skipped (%s): %d lines over 100 columns", c.args, c.todo, len(long))
				continue
			}
			t.Errorf("%v: %d lines over 100 columns, the first: %q", c.args, len(long), long[0])
		}
	}
}

func linesOver(out string, width int) []string {
	var long []string
	for _, line := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(line) > width {
			long = append(long, line)
		}
	}
	return long
}

// The dataset's seed is --data-seed (data_seed in a plan); the old
// --seed and seed still work.
func TestDataSeedAndItsOldName(t *testing.T) {
	dir := t.TempDir()
	base := []string{"run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dataset", "100", "--duration", "1s", "--dry-run"}
	for _, extra := range [][]string{{"--data-seed", "7"}, {"--seed", "7"}, {filepath.Join(dir, "new.yaml")}, {filepath.Join(dir, "old.yaml")}} {
		args := append(append([]string{}, base...), extra...)
		if strings.HasSuffix(extra[0], ".yaml") {
			key := map[bool]string{true: "data_seed", false: "seed"}[strings.HasSuffix(extra[0], "new.yaml")]
			os.WriteFile(extra[0], []byte("targets: [sqlite]\nworkloads: [oltp_point_select]\ndatasets: [100]\nduration: 1s\n"+key+": 7\n"), 0o644)
			args = []string{"run", extra[0], "--dry-run"}
		}
		stdout, stderr, code := shootout(t, nil, args...)
		if code != 0 || !strings.Contains(stdout, "data seed 7") {
			t.Errorf("%v: exit %d, want \"data seed 7\" in:\n%s%s", args, code, stdout, stderr)
		}
	}
	help, _, _ := shootout(t, nil, "run", "--help")
	if !strings.Contains(help, "--data-seed SEED") || strings.Contains(help, "--seed") {
		t.Errorf("run --help names --data-seed SEED and hides --seed:\n%s", help)
	}
}

// Every shootout command in README.md's indented code blocks parses: run
// lines pass with --dry-run added, the read-only targets and studies run.
// Lines that need results or a server (report, compare, prepare) and
// other programs (make, mariadb-dump) are left out.
func TestReadmeCommandsDryRun(t *testing.T) {
	dir := t.TempDir()
	cmds, pages := readmeCommands(t, "../../README.md")
	if len(cmds) < 3 || pages == "" {
		t.Fatalf("README.md: %d shootout commands and pages %q: the parser lost them", len(cmds), pages)
	}
	// the files README's own-application commands name: its pages, and a
	// dump holding the table they read
	os.WriteFile(filepath.Join(dir, "pages.yaml"), []byte(pages), 0o644)
	writeGzip(t, filepath.Join(dir, "mydb.sql.gz"), "CREATE TABLE `help_topic` (\n  `help_topic_id` int NOT NULL,\n"+
		"  `name` varchar(64) NOT NULL,\n  `description` text,\n  PRIMARY KEY (`help_topic_id`)\n) ENGINE=Aria;\n"+
		"INSERT INTO `help_topic` VALUES (1,'a','b');\n")
	// and the capture its replay line names: one session of one query
	os.WriteFile(filepath.Join(dir, "app.capture"), []byte(
		`{"type":"header","format":"shootout-capture","version":1,"protocol":"mysql","start_ns":1000}`+"\n"+
			`{"type":"open","session":1,"at_ns":1000}`+"\n"+
			`{"type":"command","session":1,"seq":1,"kind":"query","text":"SELECT 1","start_ns":2000,"end_ns":3000,"rows":1}`+"\n"+
			`{"type":"end","at_ns":9000}`+"\n"), 0o644)
	ran := 0
	for _, c := range cmds {
		args := c.args[1:]
		switch args[0] {
		case "run":
			args = append(args, "--dry-run")
		case "targets", "studies":
		default:
			continue
		}
		ran++
		stdout, stderr, code := shootoutIn(t, dir, args...)
		if code != 0 {
			t.Errorf("README.md:%d: %s: exit %d: %s%s", c.line, strings.Join(c.args, " "), code, stderr, firstLines(stdout, 3))
		}
	}
	if ran == 0 {
		t.Fatal("README.md: no run, targets or studies command found")
	}
}

type readmeCommand struct {
	line int
	args []string
}

// readmeCommands are the shootout commands of the file's indented code
// blocks (backslash continuations joined, comments dropped), and the
// first block that is a pages file.
func readmeCommands(t *testing.T, path string) (cmds []readmeCommand, pages string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var joined string
	start, n, inPages := 0, 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		code, isCode := strings.CutPrefix(line, "    ")
		if inPages = inPages && isCode; inPages {
			pages += code + "\n"
		}
		if isCode && code == "pages:" && pages == "" {
			inPages, pages = true, "pages:\n"
		}
		if !isCode && joined == "" {
			continue
		}
		if joined == "" {
			start = n
		}
		joined += strings.TrimSpace(code) + " "
		if strings.HasSuffix(strings.TrimSpace(code), "\\") {
			joined = strings.TrimSuffix(strings.TrimSpace(joined), "\\")
			continue
		}
		if args := shellWords(joined); len(args) > 1 && args[0] == "shootout" {
			cmds = append(cmds, readmeCommand{start, args})
		}
		joined = ""
	}
	return cmds, pages
}

// shellWords splits a command line as sh would for README's examples:
// single quotes, and a # that starts a comment.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case quoted:
			w.WriteRune(r)
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

func writeGzip(t *testing.T, path, text string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := gzip.NewWriter(f)
	fmt.Fprint(z, text)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// shootoutIn is shootout run in dir, where README's relative paths point.
func shootoutIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return shootoutWith(t, dir, []string{"COLUMNS=100"}, args...)
}

// targets: one row per target with its version when available, the two
// Aria targets told apart, the external URLs and --app as footnotes.
func TestTargetsScreen(t *testing.T) {
	stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, "targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && (f[1] == "available" || f[1] == "unavailable") {
			rows[f[0]] = line
			if f[1] == "available" && !regexp.MustCompile(`^\S+\s+available\s+\S+ \d+\.\d+`).MatchString(line) {
				t.Errorf("an available target without its version: %q", line)
			}
		}
	}
	if len(rows) < 12 || rows["--app"] != "" || strings.Contains(stdout, "\nmysql://") {
		t.Errorf("want the 12 targets as rows and --app and the URLs as footnotes:\n%s", stdout)
	}
	detail := func(name string) string { return strings.Join(strings.Fields(rows[name])[3:], " ") }
	if rows["mariadb-aria"] != "" && detail("mariadb-aria") == detail("mariadb-aria-nontx") {
		t.Errorf("mariadb-aria and mariadb-aria-nontx read the same:\n%s", stdout)
	}
	for _, note := range []string{"\nExternal: mysql://…", "\n--app redmine: "} {
		if !strings.Contains(stdout, note) {
			t.Errorf("no footnote %q:\n%s", note, stdout)
		}
	}
}

// The dry run opens with a summary in words a person reads: the axes, an
// estimate, human durations, "no cap", "1 cell", settings as key=value.
func TestDryRunSummaryReads(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(plan, []byte("targets: [mariadb-innodb]\nworkloads: [oltp_point_select]\ndatasets: [1000]\nclients: [1, 2]\n"+
		"duration: 20m\ninterval: 0s\nsettings: {mariadb-innodb: {innodb_flush_log_at_trx_commit: '2', max_connections: '50'}}\n"), 0o644)
	stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, "run", plan, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2 cells; estimated time about 4", "axes: target mariadb-innodb (1); clients 1, 2 (2)", "memory no cap",
		"disk raw", "IOPS no cap", "stop 20 min, closed loop", "no interval lines",
		"settings innodb_flush_log_at_trx_commit=2, max_connections=50"} {
		// read as words: where a line wraps is the terminal's business
		if !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}
	for _, bad := range []string{"20m0s", "map[", "free", "interval 0s"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("%q in:\n%s", bad, stdout)
		}
	}
	one, _, _ := shootout(t, nil, "run", "--targets", "sqlite", "--workload", "oltp_point_select", "--dry-run")
	if !strings.Contains(one, ": 1 cell;") {
		t.Errorf("want \"1 cell\":\n%s", one)
	}
}
