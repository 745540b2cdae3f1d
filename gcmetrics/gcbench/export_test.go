package gcbench

// Warned reports whether the benchmark named name has had the live-heap
// warning in its current run.
func Warned(name string) bool {
	rounds.Lock()
	defer rounds.Unlock()
	t, ok := rounds.m[name]
	return ok && t.warned
}

// CyclesWarned reports whether the benchmark named name had the few-cycles
// warning in its current run's final round.
func CyclesWarned(name string) bool {
	rounds.Lock()
	defer rounds.Unlock()
	t, ok := rounds.m[name]
	return ok && t.cyclesWarned
}
