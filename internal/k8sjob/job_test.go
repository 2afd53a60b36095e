package k8sjob

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/resource"
	"github.com/yannh/kubeconform/pkg/validator"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func options() Options {
	return Options{Name: "study-1", Image: "registry.example/shootout:1", Shards: 4, Claim: "results",
		Run: []string{"--study=redmine", "--quick=true", "--param=note=it's"}}
}

// kubeconform validates the manifest, strictly, against a batch/v1 Job
// schema: the one in testdata/kubernetes-json-schema when it is there
// (kubeconform's layout: job-batch-v1.json), else one made here from
// k8s.io/api's types (schemaOf), every object closed to fields the types
// lack and every field without omitempty required. Made from the same
// types the Job is, that schema catches only a fault of serialisation (a
// field renamed or mistyped between the types and the YAML), not a wrong
// value nor an API server's validation rules:
// TestJobManifestHoldsTheValuesTheClusterActsOn checks those.
func kubeconform(t *testing.T, manifest []byte) validator.Result {
	t.Helper()
	gen := t.TempDir()
	b, err := json.MarshalIndent(schemaOf(reflect.TypeOf(batchv1.Job{}), map[reflect.Type]bool{}), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gen, "job-batch-v1.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	layout := "/{{ .ResourceKind }}{{ .KindSuffix }}.json"
	v, err := validator.New([]string{"testdata/kubernetes-json-schema" + layout, gen + layout}, validator.Opts{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return v.ValidateResource(resource.Resource{Path: "job.yaml", Bytes: manifest})
}

func TestJobManifestValidatesAgainstTheKubernetesSchema(t *testing.T) {
	job, err := Job(options())
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := YAML(job)
	if err != nil {
		t.Fatal(err)
	}
	if r := kubeconform(t, manifest); r.Status != validator.Valid {
		t.Fatalf("kubeconform: status %d: %v\n%s", r.Status, r.Err, manifest)
	}
	// the API server's strict decoding: no field the types lack
	var back batchv1.Job
	if err := yaml.UnmarshalStrict(manifest, &back); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, manifest)
	}
	if !reflect.DeepEqual(&back, job) {
		t.Fatalf("the manifest does not decode into the Job it was made of:\n%s", manifest)
	}
	// the check can fail: a field the Job does not have, a wrong type
	for _, bad := range [][2]string{{"completionMode: Indexed", "completionsMode: Indexed"}, {"completions: 4", "completions: four"}} {
		broken := bytes.Replace(manifest, []byte(bad[0]), []byte(bad[1]), 1)
		if r := kubeconform(t, broken); r.Status != validator.Invalid {
			t.Errorf("%q passed kubeconform (status %d, %v)", bad[1], r.Status, r.Err)
		}
	}
}

// The Job is what docs/cluster-jobs.md says: Indexed, N pods at once,
// each on a node no other of them is on, privileged, running its shard
// and writing its results to the volume; a failed shard fails alone.
func TestJobRunsEachShardOnANodeOfItsOwn(t *testing.T) {
	job, err := Job(options())
	if err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 {
		t.Errorf("completion mode %v, completions %d, parallelism %d", *s.CompletionMode, *s.Completions, *s.Parallelism)
	}
	if s.BackoffLimit != nil || s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("a failed shard must fail its index alone, not be retried nor stop the others: %+v", s)
	}
	pod := s.Template.Spec
	terms := pod.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(terms) != 1 || terms[0].TopologyKey != corev1.LabelHostname ||
		!subset(terms[0].LabelSelector.MatchLabels, s.Template.Labels) {
		t.Errorf("pods may share a node: %+v", pod.Affinity)
	}
	c := pod.Containers[0]
	if c.SecurityContext == nil || c.SecurityContext.Privileged == nil || !*c.SecurityContext.Privileged || pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("container %+v, restart %s", c.SecurityContext, pod.RestartPolicy)
	}
	script := c.Command[len(c.Command)-1]
	for _, want := range []string{`shootout run --study=redmine --quick=true '--param=note=it'\''s' --shard "$JOB_COMPLETION_INDEX/4" --out /var/tmp/`,
		"/results/study-1/shard-$JOB_COMPLETION_INDEX", "exit $rc"} {
		if !strings.Contains(script, want) {
			t.Errorf("the pod's script lacks %q:\n%s", want, script)
		}
	}
	if c.Env[0].Name != IndexEnv || !strings.Contains(c.Env[0].ValueFrom.FieldRef.FieldPath, batchv1.JobCompletionIndexAnnotation) {
		t.Errorf("env %+v", c.Env)
	}
	if pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "results" {
		t.Errorf("results volume %+v", pod.Volumes[0])
	}
}

func TestOptionsAreRefusedNamingTheFlag(t *testing.T) {
	for want, o := range map[string]Options{
		"--shards: 0 is not":             {Name: "x", Image: "i", Claim: "c"},
		"--image:":                       {Name: "x", Shards: 2, Claim: "c"},
		"--pvc or --host-path: give one": {Name: "x", Image: "i", Shards: 2, Claim: "c", HostPath: "/r"},
		"--host-path: \"r\" is not":      {Name: "x", Image: "i", Shards: 2, HostPath: "r"},
		"--name: \"Study\" is not":       {Name: "Study", Image: "i", Shards: 2, Claim: "c"},
	} {
		if _, err := Job(o); err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want one line starting %q", o, err, want)
		}
	}
}

func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) > 0
}

// schemaOf is the JSON schema of a Go type as encoding/json writes it:
// objects closed to fields the type lacks, fields without omitempty
// required, types that marshal themselves (Quantity, Time, IntOrString)
// left open.
func schemaOf(t reflect.Type, path map[reflect.Type]bool) map[string]any {
	marshaler := reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) || path[t] {
		return map[string]any{}
	}
	typed := func(name string, more map[string]any) map[string]any {
		if more == nil {
			more = map[string]any{}
		}
		more["type"] = name
		if nullable {
			more["type"] = []string{name, "null"}
		}
		return more
	}
	switch t.Kind() {
	case reflect.String:
		return typed("string", nil)
	case reflect.Bool:
		return typed("boolean", nil)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return typed("integer", nil)
	case reflect.Float32, reflect.Float64:
		return typed("number", nil)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			nullable = true
			return typed("string", nil)
		}
		nullable = true
		return typed("array", map[string]any{"items": schemaOf(t.Elem(), path)})
	case reflect.Map:
		nullable = true
		return typed("object", map[string]any{"additionalProperties": schemaOf(t.Elem(), path)})
	case reflect.Struct:
		path[t] = true
		defer delete(path, t)
		props, required := map[string]any{}, []string{}
		fields(t, path, props, &required)
		out := map[string]any{"properties": props, "additionalProperties": false}
		if len(required) > 0 { // draft 4, kubeconform's, wants one at least
			out["required"] = required
		}
		return typed("object", out)
	}
	return map[string]any{}
}

// fields adds t's JSON fields, those of inlined structs among them.
func fields(t reflect.Type, path map[reflect.Type]bool, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "" && (f.Anonymous || strings.Contains(opts, "inline")):
			fields(f.Type, path, props, required)
			continue
		case name == "":
			name = f.Name
		}
		props[name] = schemaOf(f.Type, path)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}

// The pod's script, run by sh with the volume and scratch disk moved
// under a temporary directory and a stand-in for shootout run: it copies
// the shard's results to NAME/shard-I, and refuses (one line, exit 2,
// before the run) a destination an earlier Job left results in.
func TestPodScriptRefusesAnEarlierJobsResults(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	os.MkdirAll(bin, 0o755)
	fake := "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n" +
		"mkdir -p $out/cells && echo ran >> " + filepath.Join(tmp, "runs") + " && echo '{}' > $out/cells/a.json && echo '{}' > $out/run.json\n"
	if err := os.WriteFile(filepath.Join(bin, "shootout"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script := strings.NewReplacer(ResultsPath+"/", tmp+"/results/", ScratchPath+"/", tmp+"/scratch/").Replace(Script(options()))
	pod := func() (string, int) {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), IndexEnv+"=1")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	dest := filepath.Join(tmp, "results", "study-1", "shard-1")
	if out, code := pod(); code != 0 {
		t.Fatalf("first Job: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dest, "cells", "a.json")); err != nil {
		t.Fatalf("results not copied: %v", err)
	}
	out, code := pod()
	if code != 2 || strings.Count(out, "\n") != 1 || !strings.Contains(out, dest+" is not empty") {
		t.Errorf("a second Job into the same place: exit %d\n%s", code, out)
	}
	if runs, _ := os.ReadFile(filepath.Join(tmp, "runs")); string(runs) != "ran\n" {
		t.Errorf("the second pod ran its shard: %q", runs)
	}
}

// The values the cluster acts on, read from the YAML kubectl is given
// (not the Go struct): each is one of the API's valid values, and
// together they are what the API server's validation takes for a Job
// with backoffLimitPerIndex (Indexed, restartPolicy Never).
func TestJobManifestHoldsTheValuesTheClusterActsOn(t *testing.T) {
	job, err := Job(options())
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := YAML(job)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	pod := at(m, "spec", "template", "spec")
	container := at(pod, "containers", 0)
	for _, c := range []struct {
		field string
		got   any
		want  any
	}{
		{"apiVersion", m["apiVersion"], "batch/v1"},
		{"kind", m["kind"], "Job"},
		// NonIndexed gives no JOB_COMPLETION_INDEX: every pod would run shard 0
		{"spec.completionMode", at(m, "spec", "completionMode"), "Indexed"},
		{"spec.completions", at(m, "spec", "completions"), float64(4)},
		{"spec.parallelism", at(m, "spec", "parallelism"), float64(4)},
		// 0, written out: absent, the index would be retried up to 6 times
		{"spec.backoffLimitPerIndex", at(m, "spec", "backoffLimitPerIndex"), float64(0)},
		{"spec.backoffLimit", at(m, "spec", "backoffLimit"), nil},
		// the API refuses backoffLimitPerIndex with any other
		{"restartPolicy", at(pod, "restartPolicy"), "Never"},
		{"privileged", at(container, "securityContext", "privileged"), true},
		{"anti-affinity topologyKey", at(pod, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", 0, "topologyKey"),
			"kubernetes.io/hostname"},
		{"index env fieldPath", at(container, "env", 0, "valueFrom", "fieldRef", "fieldPath"),
			"metadata.annotations['batch.kubernetes.io/job-completion-index']"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %#v, want %#v", c.field, c.got, c.want)
		}
	}
}

// at walks a decoded YAML document by keys and indexes; nil where the
// path ends early.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}
