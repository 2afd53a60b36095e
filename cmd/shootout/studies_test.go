package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// `shootout studies` states each seed's machine and servers once, in
// lines under 100 columns, and names what still differs here.
func TestStudiesStateEachSeedsSetUp(t *testing.T) {
	stdout, stderr, code := shootout(t, nil, "studies")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	studies, _, _ := strings.Cut(stdout, "Workloads")
	for _, line := range strings.Split(studies, "\n") {
		if utf8.RuneCountInString(line) >= 100 {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(line), line)
		}
	}
	for _, bad := range []string{"seed 004  seed 004", "(none: the quick look)"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("studies says %q:\n%s", bad, stdout)
		}
	}
	for _, want := range []string{"seed 004's machine: a VMware VM: 2 vCPU", "3 GB", "seed 004's servers:",
		"seed 000/002's machine: Xen", "seed 001's machine:", "seed 003's machine:", "differs here:"} {
		if !strings.Contains(strings.Join(strings.Fields(studies), " "), want) {
			t.Errorf("studies lacks %q:\n%s", want, stdout)
		}
	}
}

// A run of a seed's study records the seed and how the run differs from
// it, flags included, for the report's header.
func TestRunRecordsHowItDiffersFromTheSeed(t *testing.T) {
	c := runCmd()
	if err := c.ParseFlags([]string{"--study", "sysbench", "--memory", "1G"}); err != nil {
		t.Fatal(err)
	}
	var f runFlags
	f.study = "sysbench"
	p, _, err := buildPlan(c, nil, f)
	if err != nil {
		t.Fatal(err)
	}
	s := seedSetup(c, nil, f, p, 2)
	if s == nil || s.Seed != "004" || !strings.Contains(strings.Join(s.Differs, "\n"), "memory: 1G here, 3G in the seed") {
		t.Fatalf("seed set-up %+v, want seed 004 and the memory named", s)
	}
	if s := seedSetup(c, []string{"plan.yaml"}, runFlags{}, p, 2); s != nil {
		t.Errorf("a plan file of the user's own is no seed's study: %+v", s)
	}
}
