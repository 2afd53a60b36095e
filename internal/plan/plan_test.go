package plan_test

import (
	"os"
	"path/filepath"
	"reflect"
	. "shootout/internal/plan"
	_ "shootout/internal/run"
	"strings"
	"testing"

	"shootout/internal/dialect"
	"shootout/internal/result"
	_ "shootout/internal/workload/all"
)

func TestPlanErrorsNameFileLineAndWhatIsValid(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown key", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduraton: 5s\n", "line 4: field duraton not found"},
		{"unknown target", "targets: [sqlite, oracle]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\n", "line 1: targets: unknown target \"oracle\" (valid: sqlite, mariadb-innodb"},
		{"unknown workload", "targets: [sqlite]\nworkloads: [tpcc]\ndatasets: [1000]\nduration: 5s\n", "line 2: workloads: unknown workload \"tpcc\" (valid: dump, kv, oltp_delete"},
		{"bad dataset", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [lots]\nduration: 5s\n", "line 3: datasets: dataset \"lots\": want a table size"},
		{"bad clients", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nclients: [0]\nduration: 5s\n", "line 4: clients: 0 is not a client count"},
		{"bad duration", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: soon\n", "line 4: duration: \"soon\" is not a duration"},
		{"bad neighbour", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\nneighbour: [x3]\n", "line 5: neighbour: \"x3\" is not one of 0, 25%, x1, x2, x4"},
		{"bad memory", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\nmemory: lots\n", "line 5: memory: \"lots\" is not a size"},
		{"bad param", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\nparams: {point_select: 3}\n", "line 5: params: oltp_read_write: unknown parameter \"point_select\" (valid:"},
		{"baseline not a target", "targets: [sqlite]\nbaseline: postgres\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\n", "line 2: baseline: \"postgres\" is not one of the targets"},
		{"no stop", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\n", "give a duration"},
		{"not yaml", "targets: [sqlite\n", "plan p.yaml: line"},
		{"remote server", "targets: ['mysql://u:secret@10.0.0.5/db']\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\n", "not a loopback address"},
		{"25% without a disk", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\nneighbour: ['25%']\n", "line 5: neighbour: 25% is a quarter of the disk's IOPS: give iops (the disk's cap, e.g. 100) or disk (a disk model)"},
		{"huge neighbour file", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\nneighbour_file: 10G\n", "line 5: neighbour_file: \"10G\" is not a size from 16M to 2G"},
		{"bad cpus", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\ncpus: 1.5c\n", "line 5: cpus: \"1.5c\" is not one of the accepted forms"},
		{"negative iops", "targets: [sqlite]\nworkloads: [oltp_read_write]\ndatasets: [1000]\nduration: 5s\niops: -80\n", "line 5: iops: must not be negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(c.yaml))
			if err == nil {
				_, err = p.Resolve(Options{})
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error leaks a password: %q", err)
			}
		})
	}
}

func TestExpansionOrderAndIDs(t *testing.T) {
	p, err := Parse("p.yaml", []byte("targets: [sqlite, 'mysql://root:pw@127.0.0.1:3306/sbtest?engine=rocksdb']\nworkloads: [oltp_read_only]\ndatasets: [1000]\nclients: [1, 2]\nrepeat: 2\nduration: 1s\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 8 {
		t.Fatalf("%d cells, want 2 targets x 2 clients x 2 repeats", len(r.Cells))
	}
	// targets alternate innermost so machine drift hits them alike
	if r.Cells[0].Target == r.Cells[1].Target {
		t.Fatalf("targets should alternate: %v, %v", r.Cells[0].Target, r.Cells[1].Target)
	}
	ids := map[string]bool{}
	for _, c := range r.Cells {
		if ids[c.ID] {
			t.Fatalf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		if strings.Contains(c.ID, "pw") || strings.Contains(c.Target, ":pw@") {
			t.Fatalf("password in cell %+v", c)
		}
		if strings.ContainsAny(c.ID, "/:?@ ") {
			t.Fatalf("id %q is not file-name safe", c.ID)
		}
	}
	if r.Baseline != "sqlite" || r.Trim != 0.1 || r.Interval.Seconds() != 10 || r.MaxRetries != 10 {
		t.Fatalf("defaults: %+v", r)
	}
}

func TestPresetSkipsUnavailableTargetsAndSaysWhy(t *testing.T) {
	s, err := LookupStudy("default")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Plan
	r, err := p.Resolve(Options{Available: func(tg Target) error {
		if tg.Name() == "sqlite" {
			return nil
		}
		return errMissing
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Targets) != 1 || r.Targets[0].Name() != "sqlite" || len(r.Skipped) != 3 {
		t.Fatalf("targets %v skipped %v", r.Targets, r.Skipped)
	}
	if r.Baseline != "sqlite" {
		t.Fatalf("baseline %q should fall back to a target that runs", r.Baseline)
	}
}

type missing struct{}

func (missing) Error() string { return "binary missing; fix: apt-get install -y x" }

var errMissing = missing{}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1G": 1 << 30, "512M": 512 << 20, "1.5G": 3 << 29, "2048": 2048, "64MB": 64 << 20} {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1G", "G", "1Q"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) should fail", bad)
		}
	}
}

// dataset_memory pairs each dataset with its VM size, as the seed did;
// datasets it does not name get memory.
func TestDatasetMemoryPairsDatasetsWithVMSizes(t *testing.T) {
	p := &Plan{Name: "x", Targets: []string{"sqlite"}, Workloads: []string{"redmine"}, Datasets: []string{"small", "large"},
		Memory: "512M", DatasetMemory: map[string]string{"small": "1G", "giant": "8G"}, Duration: "10s"}
	res, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range res.Cells {
		got[c.Dataset] = c.Conditions.MemoryBytes
	}
	if got["small"] != 1<<30 || got["large"] != 512<<20 {
		t.Fatalf("memory per dataset: %v", got)
	}
	p.DatasetMemory = map[string]string{"small": "lots"}
	if _, err := p.Resolve(Options{}); err == nil || !strings.Contains(err.Error(), `--memory (per dataset): "lots" is not a size`) {
		t.Fatalf("a bad dataset_memory must be named: %v", err)
	}
}

// A quota or cpuset is part of what a cell is: resume and compare must not
// take a cell run under --cpus 0.5 for one run without it.
func TestCPUsAreInTheCellsConditionsAndIDs(t *testing.T) {
	ids := map[string]string{}
	for _, cpus := range []string{"", "0.5", "0", "all"} {
		p := &Plan{Targets: []string{"sqlite"}, Workloads: []string{"oltp_read_only"}, Datasets: []string{"1000"}, Duration: "1s", CPUs: cpus}
		r, err := p.Resolve(Options{})
		if err != nil {
			t.Fatalf("cpus %q: %v", cpus, err)
		}
		c := r.Cells[0]
		if c.Conditions.CPUs != cpus || r.CPUs != cpus {
			t.Fatalf("cpus %q: conditions %+v, plan-wide %q", cpus, c.Conditions, r.CPUs)
		}
		if other, seen := ids[c.ID]; seen {
			t.Fatalf("cpus %q and %q share the id %s", cpus, other, c.ID)
		}
		ids[c.ID] = cpus
	}
	if id := CellID(result.Cell{Target: "sqlite", Workload: "w", Dataset: "1", Clients: 1, Conditions: result.Conditions{CPUs: "1,3-5"}}); strings.ContainsAny(id, "/:?@ ,") {
		t.Fatalf("id %q is not file-name safe", id)
	}
}

// A quarter of the disk's IOPS needs a disk with IOPS: a cap or a model.
func TestQuarterNeighbourTakesTheDiskModelsIOPS(t *testing.T) {
	p := &Plan{Name: "x", Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"},
		Neighbour: []string{"25%"}, Disk: "hdd", Duration: "10s"}
	res, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Cells[0].Conditions; c.Disk != "hdd" || c.Neighbour != "25%" || c.IOPS != 0 {
		t.Fatalf("conditions %+v", c)
	}
	p.Disk = "none"
	if _, err := p.Resolve(Options{}); err == nil || !strings.Contains(err.Error(), "(a disk model)") {
		t.Fatalf("25%% on the raw disk without a cap must be refused: %v", err)
	}
}

// The app axis: none leaves the cells as they were, an unknown
// application or a workload Redmine does not drive is refused with the
// key named, and redmine makes its own cells, with their own ids.
func TestAppAxis(t *testing.T) {
	p := &Plan{Name: "x", Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"},
		Duration: "10s", App: []string{"none"}}
	res, err := p.Resolve(Options{})
	if err != nil || len(res.Cells) != 1 || res.Cells[0].Conditions.App != "" {
		t.Fatalf("app none: %v, %+v", err, res)
	}
	for app, want := range map[string]string{"rails": `"rails" is not none or redmine`, "redmine": "redmine drives the redmine workload, not oltp_read_write"} {
		p.App = []string{app}
		if _, err := p.Resolve(Options{}); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "app") {
			t.Errorf("app %s: %v, want %q", app, err, want)
		}
	}
	a := result.Cell{Target: "sqlite", Workload: "redmine", Dataset: "small", Clients: 2, Conditions: result.Conditions{Neighbour: "0"}}
	b := a
	b.Conditions.App = "redmine"
	if CellID(a) == CellID(b) || a.Label() == b.Label() {
		t.Fatalf("a cell through Redmine needs its own id and label: %s %s", CellID(b), b.Label())
	}
}

// A cell on another build has a file-name-safe id of its own.
func TestCellIDOfAnotherBuild(t *testing.T) {
	a := CellID(result.Cell{Target: "mariadb-innodb@/opt/mariadb-11.4.5", Workload: "shop", Dataset: "1000", Clients: 1, Conditions: result.Conditions{Neighbour: "0"}})
	b := CellID(result.Cell{Target: "mariadb-innodb@/srv/mariadb-11.4.5", Workload: "shop", Dataset: "1000", Clients: 1, Conditions: result.Conditions{Neighbour: "0"}})
	if strings.ContainsAny(a, "/@ ") || !strings.HasPrefix(a, "mariadb-innodb-at-mariadb-11.4.5-") || a == b {
		t.Fatalf("ids %q and %q", a, b)
	}
}

// A plan's settings_file reads a my.cnf's server groups, names with - or _
// alike; settings: for the same target win; a bad line names file and line.
func TestSettingsFileReadsTheServersGroups(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "my.cnf"), []byte("[client]\nport = 1\n[mysqld]\nkey-buffer-size = 512M\nskip-name-resolve\nquery_cache_size=\"2G\"\n# a comment\n[mysqldump]\nquick\n"), 0o644)
	p, err := Parse(filepath.Join(dir, "p.yaml"), []byte("targets: [mariadb-myisam]\nworkloads: [shop]\nsettings_file: {mariadb-myisam: my.cnf}\nsettings: {mariadb-myisam: {query_cache_size: 64M}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := p.Settings["mariadb-myisam"]
	want := map[string]string{"key_buffer_size": "512M", "skip_name_resolve": "1", "query_cache_size": "64M"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("settings %v, want %v", got, want)
	}
	os.WriteFile(filepath.Join(dir, "bad.cnf"), []byte("[mysqld]\nkey buffer = 1\n"), 0o644)
	if _, err := Parse(filepath.Join(dir, "p.yaml"), []byte("settings_file: {mariadb-myisam: bad.cnf}\n")); err == nil || !strings.Contains(err.Error(), "bad.cnf:2:") {
		t.Fatalf("a bad line: %v", err)
	}
	if _, err := Parse(filepath.Join(dir, "p.yaml"), []byte("settings_file: {sqlite: my.cnf}\n")); err == nil || !strings.Contains(err.Error(), "settings_file: sqlite: its server reads no option file") {
		t.Fatalf("a target that reads no my.cnf: %v", err)
	}
	seed, err := ReadMyCnf("../../docs/examples/seed-001.cnf", dialect.MySQL.OptionGroups())
	if err != nil || seed["query_cache_size"] != "2G" || seed["join_buffer_size"] != "158M" || len(seed) != 18 {
		t.Fatalf("the seed's my.cnf: %v (%v)", seed, err)
	}
}

// Agents are an axis: one cell per count, so one process and several are
// repeats of one run, interleaved; a plan may give one count as a scalar,
// and a count above the clients is refused.
func TestAgentsAreAnAxis(t *testing.T) {
	p, err := Parse("p.yaml", []byte("targets: [redis]\nworkloads: [ping]\nclients: [4]\nduration: 1s\nagents: [0, 2]\nrepeat: '2'\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	ids := map[string]bool{}
	for _, c := range r.Cells {
		got = append(got, c.Conditions.Agents)
		ids[c.ID] = true
	}
	if !reflect.DeepEqual(got, []int{0, 2, 0, 2}) || len(ids) != 4 {
		t.Errorf("agents of the cells %v (ids %d), want 0 2 0 2, each cell its own id", got, len(ids))
	}
	one, err := Parse("p.yaml", []byte("targets: [redis]\nworkloads: [ping]\nclients: [4]\nduration: 1s\nagents: 2\n"))
	if err != nil {
		t.Fatalf("agents: 2 as a scalar: %v", err)
	}
	if r, err := one.Resolve(Options{}); err != nil || len(r.Cells) != 1 || r.Cells[0].Conditions.Agents != 2 {
		t.Errorf("agents: 2: %v %+v", err, r)
	}
	many, _ := Parse("p.yaml", []byte("targets: [redis]\nworkloads: [ping]\nclients: [1, 8]\nduration: 1s\nagents: [2]\n"))
	if _, err := many.Resolve(Options{}); err == nil || !strings.Contains(err.Error(), "2 agents for 1 clients") {
		t.Errorf("2 agents beside a 1-client cell: %v, want refused naming both", err)
	}
	// the flag's form in a plan, and a count given twice kept once
	list, err := Parse("p.yaml", []byte("targets: [redis]\nworkloads: [ping]\nclients: [4, 4]\nduration: 1s\nagents: 0,2,2\n"))
	if err != nil {
		t.Fatalf("agents: 0,2,2: %v", err)
	}
	if r, err := list.Resolve(Options{}); err != nil || len(r.Cells) != 2 {
		t.Errorf("clients 4,4 and agents 0,2,2: %v, %d cells, want 2", err, len(r.Cells))
	}
}

// The agents' CPU quota is a condition of the cells with agents only (the
// cell without is the one beside them, its id unchanged), part of their
// ids, and refused with one line naming the key where it cannot apply.
func TestAgentCPUIsTheAgentCellsCondition(t *testing.T) {
	const plan = "targets: [redis]\nworkloads: [ping]\nclients: [4]\nduration: 1s\nagents: [0, 3]\n"
	resolve := func(extra string) (*Resolved, error) {
		p, err := Parse("p.yaml", []byte(plan+extra))
		if err != nil {
			return nil, err
		}
		return p.Resolve(Options{})
	}
	without, err := resolve("")
	if err != nil {
		t.Fatal(err)
	}
	with, err := resolve("agent_cpu: 0.25\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := with.Cells; c[0].Conditions.AgentCPU != 0 || c[1].Conditions.AgentCPU != 0.25 ||
		c[0].ID != without.Cells[0].ID || c[1].ID == without.Cells[1].ID {
		t.Errorf("agent_cpu 0.25 over agents 0,3: %+v %+v", c[0].Conditions, c[1].Conditions)
	}
	for extra, want := range map[string]string{
		"agent_cpu: 1.5\n":   "line 6: agent_cpu: 1.5 is not a share of one CPU from 0.01 to 1",
		"agent_cpu: -0.5\n":  "line 6: agent_cpu: -0.5 is not a share of one CPU",
		"agent_cpu: 0.001\n": "line 6: agent_cpu: 0.001 is not a share of one CPU",
	} {
		if _, err := resolve(extra); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", extra, err, want)
		}
	}
	p, _ := Parse("p.yaml", []byte("targets: [redis]\nworkloads: [ping]\nduration: 1s\nagent_cpu: 0.25\n"))
	if _, err := p.Resolve(Options{}); err == nil || !strings.Contains(err.Error(), "line 4: agent_cpu: 0.25 is a quota of each agent's and the plan runs no agents") {
		t.Errorf("agent_cpu without agents: %v", err)
	}
}
