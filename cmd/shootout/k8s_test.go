package main

import (
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// k8s without what its Job needs, or with a run flag run would refuse,
// is one line naming the flag, and prints no Job.
func TestK8sRefusesBadValuesInOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"k8s", "--targets", "sqlite", "--workload", "kv", "--shards", "2", "--image", "i"}, "--pvc or --host-path: give one"},
		{[]string{"k8s", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r", "--shard", "0/2"}, "--shard: k8s gives each pod its own"},
		{[]string{"k8s", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r", "--clients", "two"}, `--clients: "two" is not a whole number`},
		// what run's resolve and CheckPlan refuse
		{[]string{"k8s", "--targets", "sqlite", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r", "--clients", "4", "--agents", "5"},
			"--agents: 5 agents for 4 clients"},
		{[]string{"k8s", "--targets", "sqlite", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r", "--memory", "1M"},
			"--memory: 1M is below"},
		// a DSN's password would be in the Job
		{[]string{"k8s", "--targets", "postgres://u:secret@127.0.0.1:5432/db", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r"},
			"--targets: postgres://u:***@127.0.0.1:5432/db is a server's URL"},
		// read here and in the pods, from different working directories
		{[]string{"k8s", "plan.yaml", "--shards", "2", "--image", "i", "--pvc", "r"}, "plan plan.yaml: give its absolute path"},
	} {
		stdout, stderr, code := shootout(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" || strings.Contains(stderr, "secret") {
			t.Errorf("%v: exit %d, want one line with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}

// k8s prints a Job whose pods run the plan and flags given to it, each
// with its own shard.
func TestK8sPassesThePlanAndRunFlagsToEveryPod(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "k8s.prof")
	stdout, stderr, code := shootout(t, nil, "k8s", "--study", "default", "--duration", "5s", "--param", "range_size=10", "--param", "tables=2",
		"--shards", "3", "--image", "reg/shootout:1", "--host-path", "/srv/shootout", "--name", "night", "--cpu-profile", prof)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(stdout), &job); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	pod := job.Spec.Template.Spec
	script := pod.Containers[0].Command[2]
	if want := `shootout run --duration=5s --param=range_size=10 --param=tables=2 --study=default --shard "$JOB_COMPLETION_INDEX/3"`; !strings.Contains(script, want) ||
		*job.Spec.Completions != 3 || pod.Volumes[0].HostPath.Path != "/srv/shootout" || job.Name != "night" {
		t.Fatalf("want a Job of 3 running %q, results in /srv/shootout:\n%s", want, stdout)
	}
	if strings.Contains(script, "cpu-profile") {
		t.Errorf("the root's --cpu-profile (this process's) passed on to the pods:\n%s", script)
	}
	// one row, one repeat: a second pod would idle, and is said to
	_, stderr, code = shootout(t, []string{"COLUMNS=100"}, "k8s", "--targets", "sqlite", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(stderr), " "), "the plan has 1, so 1 of the 2 shards will run no cell") ||
		len(linesOver(stderr, 100)) > 0 {
		t.Errorf("exit %d, no note of an idle shard in 100 columns:\n%s", code, stderr)
	}
}

// The new verbs' help fits the width every screen keeps to.
func TestK8sAndMergeHelpFitIn100Columns(t *testing.T) {
	for _, args := range [][]string{{"k8s", "--help"}, {"merge", "--help"}, {"--help"}} {
		stdout, stderr, code := shootout(t, []string{"COLUMNS=100"}, args...)
		if long := linesOver(stdout+stderr, 100); code != 0 || len(long) > 0 {
			t.Errorf("%v: exit %d, %d lines over 100 columns: %q", args, code, len(long), long)
		}
	}
}
