package main

import (
	"fmt"
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
NAME/shard-*. A plan file is named as the pods see it (in the image or on
the volume). docs/cluster-jobs.md says what the nodes must share.`,
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
	// what run would refuse of the plan and flags is refused here, not
	// in N pods on a cluster
	p, _, err := buildPlan(cmd, args, f)
	if err != nil {
		return usage(err)
	}
	o.Run = append(args, passedOn(cmd.Flags())...)
	for _, s := range selectors {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return usage(fmt.Errorf("--node-selector %q: want KEY=VALUE", s))
		}
		if o.NodeSelector == nil {
			o.NodeSelector = map[string]string{}
		}
		o.NodeSelector[k] = v
	}
	job, err := k8sjob.Job(o)
	if err != nil {
		return usage(err)
	}
	b, err := k8sjob.YAML(job)
	if err != nil {
		return err
	}
	if res, err := p.Resolve(plan.Options{}); err == nil && shard.Units(res.Cells) < o.Shards {
		// rows go whole to a shard: more pods than rows x repeats idle
		fmt.Fprintf(cmd.ErrOrStderr(), "shootout: note: a row's repeat goes whole to one shard and the plan has %d, so %d of the %d shards will run no cell\n",
			shard.Units(res.Cells), o.Shards-shard.Units(res.Cells), o.Shards)
	}
	_, err = cmd.OutOrStdout().Write(b)
	return err
}

// passedOn are the run flags the command line gave, as --flag=value
// (every value of a repeatable one), in the order of the flag set.
func passedOn(fl *pflag.FlagSet) []string {
	var out []string
	fl.Visit(func(f *pflag.Flag) {
		for _, own := range k8sOwnFlags {
			if f.Name == own {
				return
			}
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
