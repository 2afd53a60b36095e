package plan_test

import (
	"reflect"
	"strings"
	"testing"

	. "shootout/internal/plan"
	"shootout/internal/result"
)

// clusterPlan is issue 40's table as a plan: one InnoDB server, a Galera
// cluster with writers on one node and on all, links of none and 1 ms.
const clusterPlan = "targets: [mariadb-innodb, mariadb-galera]\nworkloads: [oltp_read_write]\ndatasets: ['1000']\nclients: [8]\nduration: 1s\nrepeat: '2'\n" +
	"settings:\n  mariadb-galera: {nodes: '3', writers: [one, all]}\nlink: none,1ms\n"

// A setting given a list and --link's links are axes of the target's own:
// one cell per value, each id its own, each cell's settings and link the
// value's, and its Variant the name the report gives its row; a single
// server in the run gets the no-link cell alone, and the notes say so.
func TestTargetSettingsAndLinkAreAxes(t *testing.T) {
	p, err := Parse("p.yaml", []byte(clusterPlan))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ids := map[string]bool{}
	for _, c := range r.Cells[:len(r.Cells)/2] {
		got = append(got, strings.TrimSpace(c.Target+" "+c.Variant)+" | "+c.Conditions.Settings["writers"]+" "+c.Conditions.Link+" "+c.Conditions.Settings["nodes"])
	}
	want := []string{
		"mariadb-innodb |   ",
		"mariadb-galera writers=one link=none | one  3",
		"mariadb-galera writers=one link=1ms | one 1ms 3",
		"mariadb-galera writers=all link=none | all  3",
		"mariadb-galera writers=all link=1ms | all 1ms 3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("one repeat's cells:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	names := map[string]bool{}
	for _, c := range r.Cells {
		ids[c.ID] = true
		names[c.NameKey()] = true
		// the id says the settings' values; the link has its own part
		if w := c.Conditions.Settings["writers"]; w != "" && !strings.Contains(c.ID, "__vwriters-"+w+"__") || strings.Contains(c.ID, "link=") {
			t.Errorf("cell %s: id %s", c.Variant, c.ID)
		}
	}
	if len(r.Cells) != 10 || len(ids) != 10 || len(names) != 5 {
		t.Errorf("%d cells, %d ids, %d names: want 5 per repeat, each its own id and name (what --resume, compare and merge match by)", len(r.Cells), len(ids), len(names))
	}
	// a long variant is cut with a hash of the whole, still its own
	long := func(v string) string {
		return CellID(result.Cell{Target: "mariadb-galera", Workload: "oltp_read_write", Dataset: "1000", Clients: 1, Variant: v, Conditions: result.Conditions{Neighbour: "0"}})
	}
	a, b := long("optimizer_switch="+strings.Repeat("x", 80)+"a"), long("optimizer_switch="+strings.Repeat("x", 80)+"b")
	if a == b || len(a) > 160 {
		t.Errorf("long variants' ids %s and %s", a, b)
	}
	if r.Cells[5].Variant != r.Cells[0].Variant || r.Cells[5].Repeat != 2 {
		t.Errorf("the second repeat runs the same cells in the same order: %+v", r.Cells[5])
	}
	if r.Baseline != "mariadb-innodb" || !strings.Contains(strings.Join(r.Notes, "\n"), "link none,1ms: mariadb-innodb is one server: its cells run with no link (none)") {
		t.Errorf("baseline %q, notes %q", r.Baseline, r.Notes)
	}
}

// --link takes a list, a rate belonging to the delay before it; none and
// a zero delay without a rate are both the no-link cell, kept once.
func TestLinkFlagIsAList(t *testing.T) {
	p := &Plan{Targets: []string{"mariadb-galera"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"}, Duration: "1s"}
	if err := p.SetFlags([]Given{{Flag: "link", Values: []string{"none,0,1ms,1gbit,5ms"}}}); err != nil {
		t.Fatal(err)
	}
	if want := (LinkList{"none", "0", "1ms,1gbit", "5ms"}); !reflect.DeepEqual(p.Link, want) {
		t.Fatalf("--link none,0,1ms,1gbit,5ms read as %q, want %q", p.Link, want)
	}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var links, labels []string
	for _, c := range r.Cells {
		links, labels = append(links, c.Conditions.Link), append(labels, c.Variant)
	}
	if !reflect.DeepEqual(links, []string{"", "1ms,1gbit", "5ms"}) || !reflect.DeepEqual(labels, []string{"link=none", "link=1ms,1gbit", "link=5ms"}) {
		t.Errorf("cells' links %q, variants %q", links, labels)
	}
	// one link on a cluster names it; none alone names nothing
	for link, want := range map[string]string{"1ms": "link=1ms", "none": ""} {
		p := &Plan{Targets: []string{"mariadb-galera"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"}, Duration: "1s", Link: LinkList{link}}
		if r, err := p.Resolve(Options{}); err != nil || len(r.Cells) != 1 || r.Cells[0].Variant != want {
			t.Errorf("link %s: %v %+v, want one cell named %q", link, err, r, want)
		}
	}
}

// A baseline that has variants is compared by its first, as the report
// names it.
func TestBaselineWithVariantsIsItsFirst(t *testing.T) {
	p, err := Parse("p.yaml", []byte(strings.Replace(clusterPlan, "targets:", "baseline: mariadb-galera\ntargets:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(Options{})
	if err != nil || r.Baseline != "mariadb-galera writers=one link=none" {
		t.Fatalf("baseline %q (%v)", r.Baseline, err)
	}
}

// link_targets keeps the link axis to the clusters it names: another
// cluster of the plan runs with none, and says so.
func TestLinkTargetsKeepTheLinkAxisToThem(t *testing.T) {
	p, err := Parse("p.yaml", []byte("targets: [mariadb-galera, mariadb-spider]\nworkloads: [oltp_read_write]\ndatasets: ['1000']\nduration: 1s\nlink: [none, 1ms]\nlink_targets: [mariadb-galera]\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.Cells {
		got = append(got, strings.TrimSpace(c.Target+" "+c.Variant))
	}
	if want := []string{"mariadb-galera link=none", "mariadb-galera link=1ms", "mariadb-spider"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "mariadb-spider is not in link_targets: its cells run with no link (none)") {
		t.Errorf("notes %q", r.Notes)
	}
}

// What no cell could run is one line naming the key and what is valid.
func TestTargetAxesRefusals(t *testing.T) {
	const head = "workloads: [oltp_read_write]\ndatasets: ['1000']\nduration: 1s\n"
	cases := []struct{ name, yaml, want string }{
		{"link on single servers only", "targets: [mariadb-innodb, sqlite]\n" + head + "link: none,1ms\n",
			"line 5: link: none,1ms: no target of the plan is a cluster (mariadb-innodb, sqlite: one server each); a link lies between a cluster's nodes (mariadb-galera, mariadb-spider, postgres-sync)"},
		{"empty link list", "targets: [mariadb-galera]\n" + head + "link: []\n", "line 5: link: an empty list makes no cell; valid: links DELAY[,RATE]"},
		{"bad link", "targets: [mariadb-galera]\n" + head + "link: [none, fast]\n", `line 5: link: "fast": the delay is a duration from 0 to 10s such as 1ms; valid: links DELAY[,RATE]`},
		{"empty settings list", "targets: [mariadb-galera]\n" + head + "settings: {mariadb-galera: {writers: []}}\n", "line 5: settings: mariadb-galera: writers: an empty list makes no cell"},
		{"a list on another target's setting", "targets: [mariadb-innodb, mariadb-galera]\n" + head + "settings: {mariadb-innodb: {writers: [one, all]}}\n",
			"line 5: settings: mariadb-innodb: writers is a setting of mariadb-galera, not of mariadb-innodb (its own: none; any other setting goes to its server)"},
		{"a value the target refuses", "targets: [mariadb-galera]\n" + head + "settings: {mariadb-galera: {writers: [one, some]}}\n", `line 5: settings: mariadb-galera setting writers="some": valid: one, all`},
		{"a list of lists", "targets: [mariadb-galera]\n" + head + "settings:\n  mariadb-galera: {writers: [[one]]}\n", "line 6: settings: mariadb-galera: writers: a list's items are values"},
		{"link_targets a single server", "targets: [mariadb-innodb, mariadb-galera]\n" + head + "link: 1ms\nlink_targets: [mariadb-innodb]\n", "line 6: link_targets: mariadb-innodb is one server"},
		{"link_targets without a link", "targets: [mariadb-galera]\n" + head + "link_targets: [mariadb-galera]\n", "line 5: link_targets: names the targets of link, which gives none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("p.yaml", []byte(c.yaml))
			if err == nil {
				_, err = p.Resolve(Options{})
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, c.want)
			}
		})
	}
	// the flags name themselves
	p := &Plan{Targets: []string{"mariadb-innodb"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"}, Duration: "1s"}
	p.SetFlags([]Given{{Flag: "link", Values: []string{"1ms"}}})
	if _, err := p.Resolve(Options{}); err == nil || !strings.HasPrefix(err.Error(), "--link: 1ms: no target of the plan is a cluster") {
		t.Errorf("--link on a single server: %v", err)
	}
	p = &Plan{Targets: []string{"mariadb-galera"}, Workloads: []string{"oltp_read_write"}, Datasets: []string{"1000"}, Duration: "1s"}
	p.SetFlags([]Given{{Flag: "link", Values: []string{","}}})
	if _, err := p.Resolve(Options{}); err == nil || !strings.HasPrefix(err.Error(), "--link: an empty list makes no cell") {
		t.Errorf("--link ,: %v", err)
	}
}

// A baseline may name one of its target's variants as the report does;
// one it does not have is refused with the variants it has.
func TestBaselineNamesAVariant(t *testing.T) {
	p, err := Parse("p.yaml", []byte(strings.Replace(clusterPlan, "targets:", "baseline: mariadb-galera writers=all link=none\ntargets:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := p.Resolve(Options{}); err != nil || r.Baseline != "mariadb-galera writers=all link=none" {
		t.Fatalf("baseline %+v (%v)", r, err)
	}
	p, _ = Parse("p.yaml", []byte(strings.Replace(clusterPlan, "targets:", "baseline: mariadb-galera writers=some\ntargets:", 1)))
	if _, err := p.Resolve(Options{}); err == nil || !strings.Contains(err.Error(),
		`line 1: baseline: mariadb-galera has no variant "writers=some" (its variants: writers=one link=none; writers=one link=1ms; writers=all link=none; writers=all link=1ms)`) {
		t.Fatalf("a variant it has not: %v", err)
	}
}
