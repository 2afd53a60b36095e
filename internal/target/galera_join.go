package target

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"shootout/internal/child"
)

// How a node came into the cluster at its start, as the cell records it
// (nodes[].joined): said by the node's own log, not assumed.
const (
	joinedNew  = "new cluster (--wsrep-new-cluster)"
	joinedCopy = "copy of n1's data directory, no state transfer"
	joinedSST  = "rsync SST"
	joinedIST  = "IST (through the rsync SST script)"
	// the log does not say the node synchronized
	joinedUnknown = "unknown: its log does not say"
)

// copyDataDir copies the entries of src, a data directory no server
// runs on, into dst, owner and modes kept (cp -a).
func copyDataDir(ctx context.Context, src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	args := []string{"-a"}
	for _, e := range entries {
		args = append(args, filepath.Join(src, e.Name()))
	}
	out, err := child.CombinedOutput(exec.CommandContext(ctx, "cp", append(args, dst+"/")...))
	if err != nil {
		return fmt.Errorf("copy %s to %s: %v: %s", src, dst, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// joinedBy says from a joiner's log how it came to hold the cluster's
// state: Galera says whether a state transfer is needed; when one is,
// the rsync script says whether the donor sent an IST or the files.
func joinedBy(log string) string {
	switch {
	case !strings.Contains(log, "Synchronized with group"):
		return joinedUnknown
	case strings.Contains(log, "State transfer required"):
		if strings.Contains(log, "rsync IST completed on joiner") {
			return joinedIST
		}
		return joinedSST
	case strings.Contains(log, "state transfer needed: no"):
		return joinedCopy
	}
	return joinedUnknown
}

// joinedFromLog reads how a Synced node came in from its log, waiting a
// little for the line that says so: the node reports Synced in its status
// before it may have logged "Synchronized with group".
func joinedFromLog(ctx context.Context, logFile string) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		log, _ := os.ReadFile(logFile)
		joined := joinedBy(string(log))
		if joined != joinedUnknown || time.Now().After(deadline) || ctx.Err() != nil {
			return joined
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// joinCopy starts joiner i on its copy of n1's data directory as it was
// before n1 first started, saved as the cluster's present position, and
// waits until it is Synced. The copy is the cluster's state: the cluster
// began from it, and has seen configuration changes since (Galera counts
// each as a seqno: n1's start as the new cluster, each node's join) but
// no write set, as n1's wsrep_replicated says. Saved at any older seqno,
// the joiner would ask for a state transfer (more than one change behind
// the one that admits it) and get it through the SST script, ~10 s each;
// one at a time, each is admitted by the very next change.
func (in *galeraInstance) joinCopy(ctx context.Context, opt StartOptions, server string, i int) error {
	st, err := in.nodes[0].status(ctx)
	if err != nil {
		return err
	}
	if st["wsrep_replicated"] != "0" {
		return fmt.Errorf("galera node n1 replicated %s write sets before %s joined: its copy is not the cluster's state", st["wsrep_replicated"], in.nodes[i].name)
	}
	state := fmt.Sprintf("# GALERA saved state\nversion: 2.1\nuuid:    %s\nseqno:   %s\nsafe_to_bootstrap: 0\n", st["wsrep_cluster_state_uuid"], st["wsrep_last_committed"])
	path := filepath.Join(in.nodes[i].dataDir, "grastate.dat")
	if err := os.WriteFile(path, []byte(state), 0o660); err != nil {
		return err
	}
	if err := os.Chown(path, int(in.cred.Uid), int(in.cred.Gid)); err != nil {
		return err
	}
	return in.startNode(ctx, opt, server, i)
}
