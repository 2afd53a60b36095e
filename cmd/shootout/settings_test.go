package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"shootout/internal/plan"
	"shootout/internal/run"
)

// runOwnFlags are run's flags that say how to run, not what: no plan
// file has them.
var runOwnFlags = []string{"study", "quick", "out", "resume", "dry-run", "allow-unlimited", "keep-data", "help"}

// workloadOwnFlags are the flags workloads declare for themselves
// (--dump, --queries, --replay): run adds them from the registry.
func workloadOwnFlags() []string {
	var names []string
	for _, f := range run.OwnFlags() {
		names = append(names, f.Flag)
	}
	return names
}

// Every flag of run is a plan setting's (or one of run's own), and every
// setting with a flag has it: a setting cannot be a flag without a plan
// key, or a key whose flag was forgotten.
func TestEveryRunFlagHasAPlanKeyAndViceVersa(t *testing.T) {
	c := runCmd()
	c.InitDefaultHelpFlag()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		s := plan.SettingByFlag(f.Name)
		switch {
		case s == nil && !slices.Contains(runOwnFlags, f.Name) && !slices.Contains(workloadOwnFlags(), f.Name):
			t.Errorf("--%s is no plan setting's flag", f.Name)
		case s != nil && !slices.Contains(plan.Keys(), s.Key):
			t.Errorf("--%s sets %q, which is no plan key", f.Name, s.Key)
		case s != nil && f.Usage != s.Usage():
			t.Errorf("--%s: help %q is not the setting's", f.Name, f.Usage)
		}
	})
	for _, s := range plan.Settings {
		if s.Flag != "" && c.Flags().Lookup(s.Flag) == nil {
			t.Errorf("setting %s declares --%s, which run does not have", s.Key, s.Flag)
		}
	}
	// the plan file's keys are the table's: a field of Plan with a yaml
	// key the table lacks would be a key no hint, flag or help knows
	pt := reflect.TypeOf(plan.Plan{})
	for i := 0; i < pt.NumField(); i++ {
		key, _, _ := strings.Cut(pt.Field(i).Tag.Get("yaml"), ",")
		if key != "" && key != "-" && plan.SettingByKey(key) == nil {
			t.Errorf("plan key %s is not in plan.Settings", key)
		}
	}
}

// A flag's value is checked against the setting's type as it is given,
// as the flag package checks its own, and a flag given twice keeps the
// last value.
func TestSettingFlagsParseOnceIntoThePlan(t *testing.T) {
	c := runCmd()
	if err := c.ParseFlags([]string{"--workload", "kv", "--rsd", "5", "--trim", "0.2", "--clients", "1,4", "--ops", "100", "--duration", "9s", "--path", "text,batch", "--dataset", "1K", "--dataset", "2K", "--link", "none,1ms,1gbit"}); err != nil {
		t.Fatal(err)
	}
	p, _, err := buildPlan(c, nil, runFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if *p.RSD != 5 || *p.Trim != 0.2 || !slices.Equal(p.Clients, []int{1, 4}) || p.Ops != 100 || p.Duration != "9s" ||
		!slices.Equal(p.Paths, []string{"text", "batch"}) || !slices.Equal(p.Datasets, []string{"2K"}) || !slices.Equal(p.Workloads, []string{"kv"}) ||
		!slices.Equal(p.Link, plan.LinkList{"none", "1ms,1gbit"}) {
		t.Fatalf("plan from flags: %+v", p)
	}
	if err := runCmd().ParseFlags([]string{"--rsd", "lots"}); err == nil || !strings.Contains(err.Error(), `invalid argument "lots" for "--rsd" flag`) {
		t.Fatalf("a float flag's bad value: %v", err)
	}
}

// `shootout studies` lists every workload's parameters from their
// declarations, within 100 columns.
func TestStudiesListEveryWorkloadsParams(t *testing.T) {
	stdout, stderr, code := shootout(t, nil, "studies")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, params, _ := strings.Cut(stdout, "\nParameters")
	for _, want := range []string{"point_selects=10", "errors=sysbench (sysbench|retry)", "path= (prepared|text|handler|get|batch)",
		"schema=redmine5 (redmine5|redmine3.3)", "order=list (list|random)", "file="} {
		if !strings.Contains(params, want) {
			t.Errorf("studies' parameters lack %q:\n%s", want, params)
		}
	}
	for _, line := range strings.Split(params, "\n") {
		if len([]rune(line)) >= 100 {
			t.Errorf("%d columns: %q", len([]rune(line)), line)
		}
	}
}
