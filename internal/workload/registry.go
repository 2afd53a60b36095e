package workload

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"shootout/internal/dialect"
)

// Spec declares a workload where it registers: its name, what it is, its
// parameters, and how it is made from their values. The parameters'
// declarations are the only place they are checked: an unknown or bad
// value is refused from them, and `shootout studies` lists them.
type Spec struct {
	Name, Description string
	Params            []Param
	// App is the application that can stand in front of the workload's
	// database (--app), "" for none.
	App string
	// Flavors are the SQL flavours it loads into; nil for every one.
	Flavors []dialect.Flavor
	// Own are run flags of its own that put it, on the user's own files,
	// in place of a study's workloads (the dump's --dump, --queries); nil
	// for none.
	Own *Own
	// New makes the workload from checked values, every parameter's
	// default filled in.
	New func(Values) (Workload, error)
}

// Own declares a workload's own run flags: each gives one parameter, all
// go together, and the first one's file names the dataset.
type Own struct {
	Flags []OwnFlag
	// Together is what the flags are as one ("your data and your
	// pages"), said when some are given without the others.
	Together string
	// What the first flag's file is ("a mysqldump"), the targets it loads
	// into ("MariaDB targets") and some of them, said when the plan has
	// none of them or some are left out.
	What, Into, IntoExamples string
}

// OwnFlag is one run flag and the parameter it gives.
type OwnFlag struct{ Flag, Param, Help string }

// OwnFlags are the workloads' own run flags, by workload.
func OwnFlags() map[string]*Own {
	out := map[string]*Own{}
	for n, s := range registry {
		if s.Own != nil {
			out[n] = s.Own
		}
	}
	return out
}

// Kind is what a parameter's value is.
type Kind int

const (
	Int Kind = iota
	Float
	Bool
	Text
)

// Param declares one parameter of a workload.
type Param struct {
	Name string
	Kind Kind
	// Default is the value when none is given; "" for none.
	Default string
	// Valid are the only values a Text parameter may take; nil for any.
	Valid []string
	// Min and Max bound a number; Max 0 is no upper bound.
	Min, Max float64
	// Help says what the parameter is; a Text parameter's that begins
	// with its first valid value says what each is, and is what its
	// refusal wants.
	Help string
	// Axis: the plan's path axis (paths, --path) sets it, one cell per
	// value.
	Axis bool
}

// Want says what a valid value is.
func (p Param) Want() string {
	switch {
	case p.Kind == Bool:
		return "true or false"
	case len(p.Valid) > 0 && strings.HasPrefix(p.Help, p.Valid[0]+" "):
		return p.Help // it says what each value is
	case len(p.Valid) > 0:
		return strings.Join(p.Valid[:len(p.Valid)-1], ", ") + " or " + p.Valid[len(p.Valid)-1]
	case p.Kind == Text:
		return "text"
	}
	what := "a whole number"
	if p.Kind == Float {
		what = "a number"
	}
	if p.Max > 0 {
		return fmt.Sprintf("%s from %v to %v", what, p.Min, p.Max)
	}
	return fmt.Sprintf("%s, %v or more", what, p.Min)
}

// check refuses a value that is not valid, naming the parameter.
func (p Param) check(v string) error {
	bad := fmt.Errorf("parameter %s=%q: want %s", p.Name, v, p.Want())
	switch p.Kind {
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return bad
		}
	case Text:
		if len(p.Valid) > 0 && !slices.Contains(p.Valid, v) {
			return bad
		}
	default:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < p.Min || (p.Max > 0 && x > p.Max) {
			return bad
		}
		if p.Kind == Int && x != float64(int64(x)) {
			return bad
		}
	}
	return nil
}

// Values are a workload's parameters, checked against its declaration,
// each default filled in.
type Values map[string]string

// Int is an Int parameter's value.
func (v Values) Int(name string) int { n, _ := strconv.Atoi(v[name]); return n }

// Float is a Float parameter's value.
func (v Values) Float(name string) float64 { x, _ := strconv.ParseFloat(v[name], 64); return x }

// Bool is a Bool parameter's value.
func (v Values) Bool(name string) bool { b, _ := strconv.ParseBool(v[name]); return b }

// Text is a Text parameter's value.
func (v Values) Text(name string) string { return v[name] }

// Freshener is a workload whose making reads files (a user's dump, an
// ids file): a plan makes it once, and each cell gets Fresh, the same
// configuration and what was read, with a cell's own state new.
type Freshener interface {
	Fresh() Workload
}

var registry = map[string]Spec{}

// Register adds a workload; called from init() of each workload package.
func Register(s Spec) {
	if _, dup := registry[s.Name]; dup {
		panic("workload registered twice: " + s.Name)
	}
	registry[s.Name] = s
}

// Names lists every registered workload, sorted.
func Names() []string {
	var out []string
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Describe returns the one-line description of a workload.
func Describe(name string) string { return registry[name].Description }

// Params are a registered workload's declared parameters, for listings
// (`shootout studies`) and help; nil for an unknown workload.
func Params(name string) []Param { return registry[name].Params }

// AxisParam is the parameter of workload name the path axis sets, "" for
// none.
func AxisParam(name string) string {
	for _, p := range registry[name].Params {
		if p.Axis {
			return p.Name
		}
	}
	return ""
}

// DrivenBy are the workloads app can stand in front of, sorted.
func DrivenBy(app string) []string {
	var out []string
	for _, n := range Names() {
		if app != "" && registry[n].App == app {
			out = append(out, n)
		}
	}
	return out
}

// LoadsInto says whether workload name loads into a server of flavor.
func LoadsInto(name string, flavor dialect.Flavor) bool {
	f := registry[name].Flavors
	return f == nil || slices.Contains(f, flavor)
}

// Apps are the applications some workload can run behind, sorted.
func Apps() []string {
	var out []string
	for _, n := range Names() {
		if a := registry[n].App; a != "" && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// New configures a registered workload: every parameter is checked
// against the declaration before the workload sees it.
func New(name string, params map[string]string) (Workload, error) {
	s, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	v, err := s.values(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s.New(v)
}

func (s Spec) values(params map[string]string) (Values, error) {
	v := Values{}
	for _, p := range s.Params {
		if p.Default != "" {
			v[p.Name] = p.Default
		}
	}
	for k, val := range params {
		i := slices.IndexFunc(s.Params, func(p Param) bool { return p.Name == k })
		if i < 0 {
			var valid []string
			for _, p := range s.Params {
				valid = append(valid, p.Name)
			}
			if len(valid) == 0 {
				return nil, fmt.Errorf("unknown parameter %q: this workload takes none", k)
			}
			sort.Strings(valid)
			return nil, fmt.Errorf("unknown parameter %q (valid: %s)", k, strings.Join(valid, ", "))
		}
		if err := s.Params[i].check(val); err != nil {
			return nil, err
		}
		v[k] = val
	}
	return v, nil
}
