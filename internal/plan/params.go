package plan

import (
	"strings"

	"shootout/internal/workload"
)

// ParamGroup is the parameters some workloads share, as one line:
// name=default (the valid values), from the workloads' declarations.
type ParamGroup struct {
	Workloads []string
	Line      string
}

// ParamGroups lists every workload's parameters, workloads that declare
// the same together, for `shootout studies`.
func ParamGroups() []ParamGroup {
	var out []ParamGroup
	at := map[string]int{}
	for _, n := range workload.Names() {
		line := paramsLine(workload.Params(n))
		if i, ok := at[line]; ok {
			out[i].Workloads = append(out[i].Workloads, n)
			continue
		}
		at[line] = len(out)
		out = append(out, ParamGroup{Workloads: []string{n}, Line: line})
	}
	return out
}

func paramsLine(ps []workload.Param) string {
	var out []string
	for _, p := range ps {
		s := p.Name + "=" + p.Default
		if len(p.Valid) > 0 {
			s += " (" + strings.Join(p.Valid, "|") + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
