// Package k8sjob builds the Kubernetes Indexed Job that runs a plan's
// shards on a cluster (shootout k8s), from the Kubernetes API's own Go
// types, so the manifest has the fields and types the API server takes.
package k8sjob

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Options are what the Job is made of.
type Options struct {
	// Name is the Job's name, also the results' directory on the volume.
	Name      string
	Namespace string
	Image     string
	Shards    int
	// Run are shootout run's arguments (a plan file, flags), without
	// --shard and --out, which each pod gets from its index.
	Run []string
	// Claim is a PersistentVolumeClaim that every pod mounts for the
	// results (ReadWriteMany); HostPath a directory on each node
	// instead. One of the two.
	Claim, HostPath string
	// NodeSelector keeps the pods on the nodes meant for them.
	NodeSelector map[string]string
}

// Paths inside the pod. Scratch is a node-local emptyDir: the servers'
// data directories live under --out while a cell runs, and must be on
// the node's own disk (the disk --iops and --disk limit), not on the
// results volume, which may be a network filesystem.
const (
	ResultsPath = "/results"
	ScratchPath = "/var/tmp"
	// IndexEnv is the variable the Job controller gives each pod its
	// completion index in (0 to completions-1).
	IndexEnv = "JOB_COMPLETION_INDEX"
)

// Check refuses options no Job can be made of, one line naming the flag.
func (o Options) Check() error {
	if err := checkName(o.Name); err != nil {
		return err
	}
	switch {
	case o.Shards < 1 || o.Shards > 1000:
		return fmt.Errorf("--shards: %d is not a shard count from 1 to 1000 (one pod, on a node of its own, each)", o.Shards)
	case o.Image == "":
		return fmt.Errorf("--image: give the container image that holds shootout and the servers it starts")
	case (o.Claim == "") == (o.HostPath == ""):
		return fmt.Errorf("--pvc or --host-path: give one, where the pods write their results")
	case o.HostPath != "" && !strings.HasPrefix(o.HostPath, "/"):
		return fmt.Errorf("--host-path: %q is not an absolute path on the nodes", o.HostPath)
	}
	return nil
}

// Job is the Indexed Job: Shards pods at once, pod i running
// `shootout run --shard i/Shards` on a node no other of its pods is on,
// privileged (shootout makes cgroups for the servers' limits), each
// copying its results into NAME/shard-i on the results volume.
func Job(o Options) (*batchv1.Job, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	n := int32(o.Shards)
	mode := batchv1.IndexedCompletion
	labels := map[string]string{"app.kubernetes.io/name": "shootout", "app.kubernetes.io/instance": o.Name}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &mode,
			Completions:    &n,
			Parallelism:    &n,
			// a failed shard is reported, not run again on another node
			// (its cells' files say what failed), and only its index
			// fails: the Job's backoffLimit would stop the other shards
			BackoffLimitPerIndex: ptr(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       podSpec(o, labels),
			},
		},
	}, nil
}

func podSpec(o Options, labels map[string]string) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		NodeSelector:  o.NodeSelector,
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			// one pod per node: two shards on one node would share its
			// cores, memory and disk, and measure each other
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
				TopologyKey:   corev1.LabelHostname,
			}},
		}},
		Containers: []corev1.Container{{
			Name:    "shootout",
			Image:   o.Image,
			Command: []string{"/bin/sh", "-c", Script(o)},
			Env: []corev1.EnvVar{{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
				FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"}}}},
			SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "results", MountPath: ResultsPath},
				{Name: "scratch", MountPath: ScratchPath},
			},
		}},
		Volumes: []corev1.Volume{
			{Name: "results", VolumeSource: resultsSource(o)},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
	}
}

func resultsSource(o Options) corev1.VolumeSource {
	if o.Claim != "" {
		return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.Claim}}
	}
	return corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: o.HostPath, Type: ptr(corev1.HostPathDirectoryOrCreate)}}
}

// Script is the pod's shell: a destination that holds anything (an
// earlier Job's results under the same name) ends the pod at once, exit
// 2, so no two runs' cells are ever mixed; else the shard runs with its
// --out on the node's scratch disk, its results (not the servers' data)
// are copied to the volume whatever the run's end, and the pod exits as
// the run did, so a failed shard fails the Job.
func Script(o Options) string {
	out := ScratchPath + "/shootout-out"
	dest := ResultsPath + "/" + o.Name + "/shard-$" + IndexEnv
	run := append([]string{"shootout", "run"}, o.Run...)
	quoted := make([]string, len(run))
	for i, a := range run {
		quoted[i] = shellQuote(a)
	}
	refuse := fmt.Sprintf(`if [ -n "$(ls -A %s 2>/dev/null)" ]; then `+
		`echo "shootout: %s is not empty (an earlier Job's results?): give --name a new name, or move it away" >&2; exit 2; fi`, dest, dest)
	return fmt.Sprintf(`%s; %s --shard "$%s/%d" --out %s; rc=$?; rm -rf %s/work; mkdir -p %s && cp -R %s/. %s/ || rc=1; exit $rc`,
		refuse, strings.Join(quoted, " "), IndexEnv, o.Shards, out, out, dest, out, dest)
}

// shellQuote quotes a word for sh, as it stands where nothing in it is
// special.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ',' || r == ':' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// YAML is the Job as kubectl apply -f takes it.
func YAML(j *batchv1.Job) ([]byte, error) {
	return yaml.Marshal(j)
}

// checkName checks a Job's name: a DNS label, short enough for the
// pods' names the controller makes from it.
func checkName(s string) error {
	if len(s) == 0 || len(s) > 52 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
		strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") {
		return fmt.Errorf("--name: %q is not a Job name: lower-case letters, digits and '-', at most 52, not starting or ending with '-'", s)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
