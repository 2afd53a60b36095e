package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"shootout/internal/units"
)

// A target's settings given a list, and the links of --link, are axes of
// a target's own: a cluster runs with writers on one node and on all, at
// no delay and at 1 ms, in one run, so the ratios between them come from
// repeats interleaved on the same machine. A target variant is one point
// of them; the cell's Variant names it, and the report shows it after
// the target's name.

// targetVariant is one cell's place on its target's own axes.
type targetVariant struct {
	settings map[string]string // the target's settings, the axes' values in
	link     string            // canonical --link, "" for none
	label    string            // the axes' values, e.g. "writers=all link=1ms"
}

// settingsFromNode puts the plan file's settings: into Settings (one
// value) and SettingAxes (a list). A plan unmarshalled without Parse
// (a test's) is read here at Resolve.
func (p *Plan) settingsFromNode() error {
	n := &p.SettingsNode
	defer func() { p.SettingsNode = yaml.Node{} }()
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil
	}
	bad := func(at *yaml.Node, format string, args ...any) error {
		return p.errAtLine("settings", at.Line, format, args...)
	}
	if n.Kind != yaml.MappingNode {
		return bad(n, "want each target's settings as {TARGET: {SETTING: VALUE or [VALUE, ...]}}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		tg, kvs := n.Content[i].Value, n.Content[i+1]
		if kvs.Tag == "!!null" {
			continue
		}
		if kvs.Kind != yaml.MappingNode {
			return bad(kvs, "%s: want its settings as key: value, such as {writers: all}", tg)
		}
		for j := 0; j+1 < len(kvs.Content); j += 2 {
			k, v := kvs.Content[j].Value, kvs.Content[j+1]
			if err := p.setSetting(tg, k, v, bad); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Plan) setSetting(tg, k string, v *yaml.Node, bad func(*yaml.Node, string, ...any) error) error {
	if _, dup := p.Settings[tg][k]; dup {
		return bad(v, "%s: %s is given twice", tg, k)
	}
	if _, dup := p.SettingAxes[tg][k]; dup {
		return bad(v, "%s: %s is given twice", tg, k)
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if p.Settings == nil {
			p.Settings = map[string]map[string]string{}
		}
		if p.Settings[tg] == nil {
			p.Settings[tg] = map[string]string{}
		}
		p.Settings[tg][k] = v.Value
		return nil
	case yaml.SequenceNode:
		var vs []string
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return bad(item, "%s: %s: a list's items are values, such as [one, all]", tg, k)
			}
			vs = append(vs, item.Value)
		}
		if p.SettingAxes == nil {
			p.SettingAxes = map[string]map[string][]string{}
		}
		if p.SettingAxes[tg] == nil {
			p.SettingAxes[tg] = map[string][]string{}
		}
		p.SettingAxes[tg][k] = vs
		return nil
	}
	return bad(v, "%s: %s: want a value, or a list of values (one cell each) such as [one, all]", tg, k)
}

// errAtLine is errAt at a line of its own (an item inside key's value).
func (p *Plan) errAtLine(key string, line int, format string, args ...any) error {
	if p.file != "" && line > 0 {
		return fmt.Errorf("plan %s: line %d: %s: %s", p.file, line, key, fmt.Sprintf(format, args...))
	}
	return p.errAt(key, format, args...)
}

// LinkList is --link's links, each DELAY[,RATE] or none. The flag and a
// plan's scalar give them in one comma-separated text, "none,1ms,1gbit":
// a rate belongs to the delay before it.
type LinkList []string

// UnmarshalYAML takes a scalar as the flag's text and a list's items as
// links each; an empty list is kept empty, for Resolve to refuse.
func (l *LinkList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = splitLinks(n.Value)
		return nil
	}
	var vs []string
	if err := n.Decode(&vs); err != nil {
		return err
	}
	*l = append(LinkList{}, vs...)
	return nil
}

// splitLinks reads "none,1ms,1gbit" as [none, 1ms,1gbit].
func splitLinks(s string) LinkList {
	out := LinkList{}
	for _, f := range splitList(s) {
		if _, err := units.ParseRate(f); err == nil && len(out) > 0 && !strings.Contains(out[len(out)-1], ",") {
			out[len(out)-1] += "," + f
			continue
		}
		out = append(out, f)
	}
	return out
}

// links are the link axis's values, canonical, "" for none: none, or a
// delay of 0 with no rate (the nodes' own veths, no relay).
func (rs *resolver) links() error {
	p := rs.p
	if p.Link != nil && len(p.Link) == 0 {
		return p.errAt("link", "an empty list makes no cell; valid: %s", SettingByKey("link").Valid)
	}
	rs.linkAxis = nil
	for _, s := range p.Link {
		if strings.EqualFold(strings.TrimSpace(s), "none") {
			rs.linkAxis = append(rs.linkAxis, "")
			continue
		}
		l, err := units.ParseLink(s)
		if err != nil {
			return p.errAt("link", "%v; valid: %s", err, SettingByKey("link").Valid)
		}
		canon := l.String()
		if l == (units.Link{}) {
			canon = ""
		}
		rs.linkAxis = append(rs.linkAxis, canon)
	}
	rs.linkAxis = unique(rs.linkAxis)
	if len(rs.linkAxis) == 0 {
		rs.linkAxis = []string{""}
	}
	return nil
}

// targetAxes expands each target's settings axes and the link axis into
// its variants, and refuses what no cell could run: a list on a setting
// another target reads itself, a value the target's start refuses, a
// link where no target is a cluster.
func (rs *resolver) targetAxes() error {
	if err := rs.links(); err != nil {
		return err
	}
	only, err := rs.linkTargets()
	if err != nil {
		return err
	}
	rs.tvs = map[string][]targetVariant{}
	none := map[string]string{} // target -> why it runs with no link
	for _, t := range rs.r.Targets {
		sets, err := rs.settingVariants(t)
		if err != nil {
			return err
		}
		for _, s := range sets {
			links := rs.linkAxis
			switch {
			case rs.env.Nodes(t, s.settings) < 2:
				links, none[t.Name()] = []string{""}, "is one server"
			case only != nil && !only[t.Name()]:
				links, none[t.Name()] = []string{""}, "is not in "+rs.p.named("link_targets")
			}
			for _, l := range links {
				v := s
				v.link = l
				if len(links) > 1 || l != "" {
					v.label = strings.TrimSpace(v.label + " link=" + cond(l, "none"))
				}
				rs.tvs[t.Name()] = append(rs.tvs[t.Name()], v)
			}
		}
	}
	return rs.linkNotes(none)
}

// linkTargets are the targets link_targets names, nil when it names
// none; each must be a cluster of the plan.
func (rs *resolver) linkTargets() (map[string]bool, error) {
	p := rs.p
	if len(p.LinkTargets) == 0 {
		return nil, nil
	}
	if !rs.linked() {
		return nil, p.errAt("link_targets", "names the targets of link, which gives none (valid: %s)", SettingByKey("link").Valid)
	}
	only := map[string]bool{}
	for _, name := range p.LinkTargets {
		t, err := rs.env.Lookup(name)
		if err != nil || !rs.seen[t.Name()] {
			return nil, p.errAt("link_targets", "%q is not one of the targets", name)
		}
		if rs.env.Nodes(t, nil) < 2 {
			return nil, p.errAt("link_targets", "%s is one server; a link lies between a cluster's nodes", t.Name())
		}
		only[t.Name()] = true
	}
	return only, nil
}

// linked: the plan asks for a link other than none.
func (rs *resolver) linked() bool {
	return slices.ContainsFunc(rs.linkAxis, func(l string) bool { return l != "" })
}

// linkNotes refuses a link with no cluster to lie in, and says which
// targets run with none.
func (rs *resolver) linkNotes(none map[string]string) error {
	if !rs.linked() {
		return nil
	}
	given := strings.Join(rs.p.Link, ",")
	var single []string
	for _, t := range rs.r.Targets {
		if none[t.Name()] == "is one server" {
			single = append(single, t.Name())
		}
	}
	if len(single) == len(rs.r.Targets) {
		var clusters []string
		for _, n := range rs.env.Names() {
			if t, err := rs.env.Lookup(n); err == nil && rs.env.Nodes(t, nil) > 1 {
				clusters = append(clusters, n)
			}
		}
		each := "one server"
		if len(single) > 1 {
			each += " each"
		}
		return rs.p.errAt("link", "%s: no target of the plan is a cluster (%s: %s); a link lies between a cluster's nodes (%s)",
			given, strings.Join(single, ", "), each, strings.Join(clusters, ", "))
	}
	for _, t := range rs.r.Targets {
		if why := none[t.Name()]; why != "" {
			rs.r.Notes = append(rs.r.Notes, fmt.Sprintf("%s %s: %s %s: its cells run with no link (none)", rs.p.named("link"), given, t.Name(), why))
		}
	}
	return nil
}

// settingVariants are target t's settings, one per point of its
// settings axes (keys in order, the first varying slowest).
func (rs *resolver) settingVariants(t Target) ([]targetVariant, error) {
	fixed, axes := rs.settingsOf(t)
	if len(axes) > 0 {
		if rs.r.SettingAxes == nil {
			rs.r.SettingAxes = map[string]map[string][]string{}
		}
		rs.r.SettingAxes[t.Name()] = axes
	}
	keys := slices.Sorted(maps.Keys(axes))
	out := []targetVariant{{settings: fixed}}
	for _, k := range keys {
		if err := rs.knows(t, k, axes[k]); err != nil {
			return nil, err
		}
		var next []targetVariant
		for _, v := range out {
			for _, val := range unique(axes[k]) {
				s := maps.Clone(v.settings)
				if s == nil {
					s = map[string]string{}
				}
				s[k] = val
				next = append(next, targetVariant{settings: s, label: strings.TrimSpace(v.label + " " + k + "=" + val)})
			}
		}
		out = next
	}
	for _, v := range out {
		if err := rs.env.CheckSettings(t, v.settings); err != nil {
			return nil, rs.p.errAt("settings", "%v", err)
		}
	}
	return out, nil
}

// knows refuses an empty list, and a list on a setting that another
// target reads itself (writers, a Galera cluster's) given to a target
// that does not: it would pass it to its server, which has none.
func (rs *resolver) knows(t Target, key string, vs []string) error {
	p := rs.p
	if len(vs) == 0 {
		return p.errAt("settings", "%s: %s: an empty list makes no cell; give a value, or a list of them such as [one, all]", t.Name(), key)
	}
	if slices.Contains(rs.env.OwnSettings(t), key) {
		return nil
	}
	for _, n := range rs.env.Names() {
		o, err := rs.env.Lookup(n)
		if err != nil || o.Name() == t.Name() || !slices.Contains(rs.env.OwnSettings(o), key) {
			continue
		}
		own := "none"
		if mine := rs.env.OwnSettings(t); len(mine) > 0 {
			own = strings.Join(mine, ", ")
		}
		return p.errAt("settings", "%s: %s is a setting of %s, not of %s (its own: %s; any other setting goes to its server)", t.Name(), key, o.Name(), t.Name(), own)
	}
	return nil
}

// baselineLabel is the baseline as the report names it: a target with
// variants is compared by the one the plan named, else by its first.
func (rs *resolver) baselineLabel() error {
	r := rs.r
	vs := rs.tvs[r.Baseline]
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.label)
	}
	switch {
	case rs.baseVariant != "" && !slices.Contains(labels, rs.baseVariant):
		return rs.p.errAt("baseline", "%s has no variant %q (its variants: %s)", r.Baseline, rs.baseVariant, strings.Join(labels, "; "))
	case rs.baseVariant != "":
		r.Baseline += " " + rs.baseVariant
	case len(vs) > 1 && vs[0].label != "":
		r.Baseline += " " + vs[0].label
		r.Notes = append(r.Notes, fmt.Sprintf("baseline: %s, the first of its variants", r.Baseline))
	}
	return nil
}

func cond(v, none string) string {
	if v == "" {
		return none
	}
	return v
}
