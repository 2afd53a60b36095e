package redmine

import (
	"context"
	"errors"
	"testing"
)

// A cycle whose step failed runs that step again on the next call. The
// driver counts each attempt's statements, the failed ones' included, as
// sysbench does: each call's outcome must be that attempt's alone, or the
// statements before the failure would be counted twice.
func TestEachAttemptOfACycleReportsItsOwnStatements(t *testing.T) {
	var cs cycles
	failed := false
	c := &cycle{kind: opCreate, steps: []func(context.Context) error{
		func(context.Context) error { cs.out.Reads += 2; return nil },
		func(context.Context) error {
			cs.out.Reads++
			if !failed {
				failed = true
				return errors.New("deadlock")
			}
			cs.out.Writes++
			return nil
		},
	}}
	newCycle := func() *cycle { return c }
	ctx := context.Background()
	first, err := cs.do(ctx, newCycle)
	if err == nil || first.Reads != 3 || first.Writes != 0 {
		t.Fatalf("first attempt: %+v, %v; want 3 reads and the error", first, err)
	}
	again, err := cs.do(ctx, newCycle)
	if err != nil || again.Reads != 1 || again.Writes != 1 || again.Op != opCreate {
		t.Fatalf("second attempt: %+v, %v; want its own 1 read and 1 write, op create", again, err)
	}
}
