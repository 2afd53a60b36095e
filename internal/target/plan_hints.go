package target

import "time"

// What the plan and the dry run ask of a target besides starting it.

// SettingsOwner is a target that reads some of its settings itself (a
// cluster's shape) rather than passing them to its server: the plan
// refuses one of them given to a target that does not read it, whose
// server would refuse it only once the cell starts.
type SettingsOwner interface {
	OwnSettings() []string
}

func (Galera) OwnSettings() []string {
	return []string{galeraNodesKey, galeraWritersKey, galeraLinkKey, galeraCutKey}
}

func (Spider) OwnSettings() []string {
	return []string{spiderBackendsKey, spiderEngineKey, spiderShardKey}
}

// StartCoster is a target whose cell takes longer to start than a
// single server's few seconds: the dry run's estimate adds it.
type StartCoster interface {
	StartCost(settings map[string]string) time.Duration
}

// StartCost: the nodes start one at a time, each joiner from a copy of
// n1's system tables with no state transfer (docs/clusters.md: 4-6 s for
// three nodes here, besides the system tables), so about 2 s a node.
func (g Galera) StartCost(settings map[string]string) time.Duration {
	return time.Duration(max(g.Nodes(settings), 1)) * 2 * time.Second
}

// StartCostOf is how long a cell of t takes to start its servers; 0
// where a single server's few seconds do.
func StartCostOf(t Target, settings map[string]string) time.Duration {
	if s, ok := t.(StartCoster); ok {
		return s.StartCost(settings)
	}
	return 0
}
