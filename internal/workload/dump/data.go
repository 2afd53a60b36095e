package dump

// Data is a dump without pages: its tables, moved to each target's
// engine, and its rows, for a workload that sends statements of its own
// (a replayed capture). Schema, PostLoad, Load and CheckSchema are the
// dump workload's.
func Data(file string) (*Workload, error) {
	w := &Workload{file: file, loadParallel: 4}
	if err := w.read(); err != nil {
		return nil, err
	}
	return w, nil
}
