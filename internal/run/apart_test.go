package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"shootout/internal/plan"
	"shootout/internal/result"
	"shootout/internal/testenv"
)

// A plan run apart: the test binary, started again with these set, runs
// the plan's matrix into the directory and exits (runApartChild).
const (
	apartPlanEnv = "SHOOTOUT_TEST_APART_PLAN"
	apartOutEnv  = "SHOOTOUT_TEST_APART_OUT"
)

// runPlanApart runs p's cells into out, as runPlan with a plain Runner does, in a
// process of their own, so that the subtests of a real-server test can
// run side by side (t.Parallel) with the runner's default CPU placement:
// a cell moves shootout's whole process onto the client's CPUs
// (limits.PinSelf) and back, which two cells of one process would undo
// under each other's feet. Each process pins itself, its servers are its
// children, and its figures (its own CPU, its servers') are its own.
func runPlanApart(t *testing.T, p *plan.Plan, want int) (files []*result.File, out string) {
	t.Helper()
	if _, err := p.Resolve(plan.Options{}); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	out = testenv.WorkDir(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), apartPlanEnv+"="+string(js), apartOutEnv+"="+out)
	// the child and, through their own parent-death signal, its servers
	// die with the test
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err = cmd.Run()
	if testing.Verbose() || err != nil {
		t.Logf("the plan's own process said:\n%s", log.String())
	}
	if err != nil {
		t.Fatalf("the plan's own process: %v", err)
	}
	files, err = result.ReadDir(out)
	if err != nil || len(files) != want {
		t.Fatalf("want %d results, got %d (%v)", want, len(files), err)
	}
	return files, out
}

// runApartChild is TestMain's first step: in a process runPlanApart
// started, it runs the plan and exits; elsewhere it returns.
func runApartChild() {
	js := os.Getenv(apartPlanEnv)
	if js == "" {
		return
	}
	err := func() error {
		var p plan.Plan
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return err
		}
		res, err := p.Resolve(plan.Options{})
		if err != nil {
			return err
		}
		r := &Runner{OutDir: os.Getenv(apartOutEnv), Log: os.Stderr}
		_, err = r.Matrix(context.Background(), res)
		return err
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "plan run apart:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
