package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"shootout/internal/k8sjob"
	"shootout/internal/plan"
	"shootout/internal/shard"
)

// k8sOwnFlags are k8s's flags that shape the Job; every other flag it
// has is run's, passed on to each pod's `shootout run`.
var k8sOwnFlags = []string{"shards", "image", "pvc", "host-path", "name", "namespace", "node-selector"}

func k8sCmd() *cobra.Command {
	var o k8sjob.Options
	var f runFlags
	var selectors []string
	c := &cobra.Command{
		Use:   "k8s [PLAN.yaml] --shards N --image IMAGE (--pvc NAME | --host-path DIR)",
		Short: "Print a Kubernetes Indexed Job running the plan's shards, a node each",
		Long: `k8s prints (for kubectl apply -f -) a batch/v1 Job of --shards pods, each
running shootout run --shard I/N with the plan and run flags given here, on a
node of its own, privileged (for the servers' cgroups); each pod copies its
--out to NAME/shard-I on the results volume. Then: shootout merge OUT
NAME/shard-*. A plan file is read here and in every pod at the absolute path
given: keep it at that path in the image or on a volume the pods mount.
docs/cluster-jobs.md says what the nodes must share.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usage(fmt.Errorf("k8s takes at most one plan file, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return k8sMain(cmd, args, o, f, selectors)
		},
	}
	fl := c.Flags()
	fl.IntVar(&o.Shards, "shards", 0, "`N` shards: pods, on N nodes, each running 1/N of the plan's cells")
	fl.StringVar(&o.Image, "image", "", "the container `IMAGE` holding shootout and the servers it starts")
	fl.StringVar(&o.Claim, "pvc", "", "the PersistentVolumeClaim (ReadWriteMany) the pods write their results to, `NAME`")
	fl.StringVar(&o.HostPath, "host-path", "", "or a `DIR` on each node the pod writes its results to (collect them before merge)")
	fl.StringVar(&o.Name, "name", "shootout", "the Job's `NAME`, also its results' directory on the volume")
	fl.StringVar(&o.Namespace, "namespace", "", "the Job's `NAMESPACE` (default: kubectl's)")
	fl.StringArrayVar(&selectors, "node-selector", nil, "`KEY=VALUE` a node must have to run a shard (repeatable)")
	// run's flags, checked as run checks them, passed on
	fl.StringVar(&f.study, "study", "", "a preset `NAME` for every shard (shootout studies)")
	fl.BoolVar(&f.quick, "quick", false, "the study's quick variant")
	fl.BoolVar(&f.allowUnlimited, "allow-unlimited", false, "as run's")
	registerSettings(fl)
	fl.MarkHidden("shard") // each pod's own: refused here
	return c
}

func k8sMain(cmd *cobra.Command, args []string, o k8sjob.Options, f runFlags, selectors []string) error {
	if cmd.Flags().Changed("shard") {
		return usage(fmt.Errorf("--shard: k8s gives each pod its own (--shards N for N pods)"))
	}
	if len(args) == 1 && !filepath.IsAbs(args[0]) {
		return usage(fmt.Errorf("plan %s: give its absolute path, the same here and in the pods (in the image or on a volume they mount)", args[0]))
	}
	// what run would refuse of the plan and flags is refused here, not
	// in N pods on a cluster; what is installed here is not the image's
	p, preset, err := buildPlan(cmd, args, f)
	if err != nil {
		return usage(err)
	}
	res, err := resolveFor(cmd, p, preset, false)
	if err != nil {
		return usage(err)
	}
	for _, t := range res.Targets {
		if !t.Managed() {
			// its DSN's password would be in the Job, and 127.0.0.1 in
			// a pod is the pod's own
			return usage(fmt.Errorf("--targets: %s is a server's URL; k8s runs only servers shootout starts in each pod", plan.Redacted(t.Name())))
		}
	}
	o.Run = append(args, passedOn(cmd)...)
	if o.NodeSelector, err = nodeSelector(selectors); err != nil {
		return usage(err)
	}
	job, err := k8sjob.Job(o)
	if err != nil {
		return usage(err)
	}
	b, err := k8sjob.YAML(job)
	if err != nil {
		return err
	}
	if units := shard.Units(res.Cells); units < o.Shards {
		// rows go whole to a shard: more pods than rows x repeats idle
		fmt.Fprintln(cmd.ErrOrStderr(), wrapText(fmt.Sprintf("shootout: note: a row's repeat goes whole to one shard and the plan has %d, "+
			"so %d of the %d shards will run no cell", units, o.Shards-units, o.Shards), termWidth(), 2))
	}
	_, err = cmd.OutOrStdout().Write(b)
	return err
}

// nodeSelector reads --node-selector's KEY=VALUE pairs.
func nodeSelector(pairs []string) (map[string]string, error) {
	var out map[string]string
	for _, s := range pairs {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--node-selector %q: want KEY=VALUE", s)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, nil
}

// passedOn are the run flags the command line gave, as --flag=value
// (every value of a repeatable one), in the order of the flag set; not
// k8s's own, nor the root's (--cpu-profile profiles this process).
func passedOn(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(k8sOwnFlags, f.Name) || cmd.InheritedFlags().Lookup(f.Name) != nil {
			return
		}
		if v, ok := f.Value.(*settingValue); ok {
			for _, x := range v.values {
				out = append(out, "--"+f.Name+"="+x)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}
