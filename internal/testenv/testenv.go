// Package testenv decides what a test does when a server it needs is not
// installed: skip on a developer's machine, fail under CI, where .ci/run
// installs every server and a skip would hide a broken install.
package testenv

import (
	"os"
	"os/exec"
	"testing"

	"shootout/internal/target"
)

// CI is true when the tests run under .ci/run.
func CI() bool { return os.Getenv("CI") == "true" }

// RequireTarget skips or fails the test when t cannot run here.
func RequireTarget(tb testing.TB, t target.Target) {
	tb.Helper()
	if err := t.Available(); err != nil {
		if CI() {
			tb.Fatalf("CI=true and target %s cannot run: %v", t.Name(), err)
		}
		tb.Skipf("target %s not available: %v", t.Name(), err)
	}
}

// WorkDir is a temporary directory that a server running as another user
// (postgres) can enter.
func WorkDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "shootout-test-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// LookPath finds the first of names on PATH. A missing program skips the
// test on a developer's machine and fails it under CI, where make deps
// installs it.
func LookPath(tb testing.TB, names ...string) string {
	tb.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if CI() {
		tb.Fatalf("CI=true and none of %v is installed (make deps installs it)", names)
	}
	tb.Skipf("none of %v is installed", names)
	return ""
}
