package target

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"

	"shootout/internal/dialect"
	"shootout/internal/proto"
)

// GaleraProvider is Debian's galera-4 library.
var GaleraProvider = "/usr/lib/galera/libgalera_smm.so"

// Galera is a MariaDB Galera cluster shootout starts itself: N private
// mariadbd, each a host of its own (a network namespace of internal/netns,
// its own data directory), InnoDB, bootstrapped by shootout — the first
// with --wsrep-new-cluster, the others from a copy of its data directory
// with no state transfer (galera_join.go). A node that rejoins later
// (after a kill or a link cut) does so by rsync SST or IST (Debian's
// mariadb-backup is not installed here; rsync is what the package needs).
type Galera struct{}

// The cluster's own settings, taken out of the target's settings before
// the rest go to every mariadbd: how many nodes, where the clients write
// (the first node, or round-robin over all), and each node's bandwidth to
// the others (tc's units; "" for none).
const (
	galeraNodesKey   = "nodes"
	galeraWritersKey = "writers"
	galeraLinkKey    = "link_rate"
)

type galeraConf struct {
	nodes   int
	writers string
	rate    string
	// cut is the link cut the cell's settings schedule (galeraCutKey), nil for none
	cut    *linkCut
	server map[string]string
}

func galeraConfig(settings map[string]string) (galeraConf, error) {
	c := galeraConf{nodes: 3, writers: "one", server: maps.Clone(settings)}
	if c.server == nil {
		c.server = map[string]string{}
	}
	if v, ok := c.server[galeraNodesKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > 9 {
			return c, fmt.Errorf("mariadb-galera setting nodes=%q: valid: 2 to 9", v)
		}
		c.nodes = n
	}
	if v, ok := c.server[galeraWritersKey]; ok {
		if v != "one" && v != "all" {
			return c, fmt.Errorf("mariadb-galera setting writers=%q: valid: one, all", v)
		}
		c.writers = v
	}
	c.rate = c.server[galeraLinkKey]
	if v, ok := c.server[galeraCutKey]; ok {
		cut, err := parseLinkCut(v, c.nodes)
		if err != nil {
			return c, err
		}
		c.cut = cut
	}
	for _, k := range []string{galeraNodesKey, galeraWritersKey, galeraLinkKey, galeraCutKey} {
		delete(c.server, k)
	}
	return c, nil
}

// CheckSettings refuses the cluster's own settings that its start would.
func (Galera) CheckSettings(settings map[string]string) error {
	_, err := galeraConfig(settings)
	return err
}

func (Galera) Name() string         { return "mariadb-galera" }
func (Galera) Protocol() proto.Name { return proto.SQL }
func (Galera) Embedded() bool       { return false }
func (Galera) Managed() bool        { return true }
func (Galera) Dialect() dialect.Dialect {
	return dialect.Dialect{Flavor: dialect.MySQL, Engine: "innodb"}
}

// Nodes is how many nodes a cell starts.
func (Galera) Nodes(settings map[string]string) int {
	c, err := galeraConfig(settings)
	if err != nil {
		return 0
	}
	return c.nodes
}

// StartsWhat is the cluster in the dry run's and the target list's words.
func (g Galera) StartsWhat(settings map[string]string) string {
	c, err := galeraConfig(settings)
	if err != nil {
		return err.Error()
	}
	_, transport := Build(g)
	return fmt.Sprintf("a Galera cluster per cell: %d private mariadbd, each in a network namespace of its own, engine innodb, clients on %s, %s",
		c.nodes, map[string]string{"one": "the first node", "all": "every node round-robin"}[c.writers], transport)
}

func (Galera) Available() error {
	if _, _, err := mariadbBinaries(); err != nil {
		return err
	}
	if _, err := os.Stat(GaleraProvider); err != nil {
		return errors.New("the Galera provider " + GaleraProvider + " is missing; fix: apt-get install -y galera-4")
	}
	for _, p := range []struct{ prog, pkg string }{{"rsync", "rsync"}, {"ip", "iproute2"}, {"tc", "iproute2"}, {"setpriv", "util-linux"}, {"wsrep_sst_rsync", "mariadb-server"}} {
		if _, err := exec.LookPath(p.prog); err != nil {
			return fmt.Errorf("%s not found (a Galera node's SST or host needs it); fix: apt-get install -y %s", p.prog, p.pkg)
		}
	}
	if os.Geteuid() != 0 {
		return errors.New("mariadb-galera makes network namespaces: run shootout as root")
	}
	_, err := mysqlCredential()
	return err
}

// mysqlCredential: the nodes run as Debian's mysql user, since the
// joiner's rsync daemon, started as root, would write as nobody.
func mysqlCredential() (*syscall.Credential, error) {
	u, err := user.Lookup("mysql")
	if err != nil {
		return nil, errors.New("no mysql user to run the Galera nodes as; fix: apt-get install -y mariadb-server (it creates one)")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// reachableServerDir is the server's directory where cred's user can
// enter it: under --out if it can, else under ReachableWorkDir.
func reachableServerDir(opt StartOptions, name string, cred *syscall.Credential) (string, error) {
	dir, err := makeServerDir(opt, name)
	if err != nil {
		return "", err
	}
	if why := accessibleTo(dir, cred); why != nil {
		os.Remove(dir)
		work, err := reachableWorkDir()
		if err != nil {
			return "", fmt.Errorf("%v, and %w", why, err)
		}
		if dir, err = makeServerDir(StartOptions{WorkDir: work}, name); err != nil {
			return "", err
		}
		logf(opt.Log, "%v: the cluster's directory is %s instead", why, dir)
	}
	return dir, os.Chown(dir, int(cred.Uid), int(cred.Gid))
}

// Start makes the hosts, starts the first node as a new cluster and the
// others one by one as joiners on copies of its data directory, then
// waits until every node sees all N and is Synced.
func (g Galera) Start(ctx context.Context, opt StartOptions) (_ Instance, err error) {
	if err := g.Available(); err != nil {
		return nil, err
	}
	conf, err := galeraConfig(opt.Settings)
	if err != nil {
		return nil, err
	}
	cred, _ := mysqlCredential()
	dir, err := reachableServerDir(opt, "mariadb-galera", cred)
	if err != nil {
		return nil, err
	}
	in := &galeraInstance{conf: conf, cred: cred, cluster: cluster[*galeraNode]{dir: dir, keep: opt.KeepData, forgetNet: opt.ForgetNet,
		versionQuery: mysqlVersionQuery, settingsQuery: mysqlSettingsQuery}}
	defer func() {
		if err != nil {
			in.Stop(context.WithoutCancel(ctx))
		}
	}()
	if err := in.makeHosts(ctx, opt, conf.nodes, conf.rate, "links between nodes"); err != nil {
		return nil, err
	}
	if err := in.sizeNodes(opt); err != nil {
		return nil, err
	}
	if err := in.startNodes(ctx, opt); err != nil {
		return nil, err
	}
	if err := in.connect(ctx); err != nil {
		return nil, err
	}
	logf(opt.Log, "started %s: %d nodes Synced (%s), clients write to %s", g.Name(), conf.nodes, in.addrs(), conf.writers)
	return in, nil
}
