package main

import (
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
	} {
		stdout, stderr, code := shootout(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, want one line with %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}

// k8s prints a Job whose pods run the plan and flags given to it, each
// with its own shard.
func TestK8sPassesThePlanAndRunFlagsToEveryPod(t *testing.T) {
	stdout, stderr, code := shootout(t, nil, "k8s", "--study", "default", "--duration", "5s", "--param", "a=b", "--param", "c=d",
		"--shards", "3", "--image", "reg/shootout:1", "--host-path", "/srv/shootout", "--name", "night")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(stdout), &job); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	pod := job.Spec.Template.Spec
	script := pod.Containers[0].Command[2]
	if want := `shootout run --duration=5s --param=a=b --param=c=d --study=default --shard "$JOB_COMPLETION_INDEX/3"`; !strings.Contains(script, want) ||
		*job.Spec.Completions != 3 || pod.Volumes[0].HostPath.Path != "/srv/shootout" || job.Name != "night" {
		t.Fatalf("want a Job of 3 running %q, results in /srv/shootout:\n%s", want, stdout)
	}
	// one row, one repeat: a second pod would idle, and is said to
	_, stderr, code = shootout(t, nil, "k8s", "--targets", "sqlite", "--workload", "kv", "--shards", "2", "--image", "i", "--pvc", "r")
	if code != 0 || !strings.Contains(stderr, "the plan has 1, so 1 of the 2 shards will run no cell") {
		t.Errorf("exit %d, no note of an idle shard:\n%s", code, stderr)
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
