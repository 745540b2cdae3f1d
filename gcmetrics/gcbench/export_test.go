package gcbench

// Warned reports whether the benchmark named name has had the live-heap
// warning in its current run.
func Warned(name string) bool {
	rounds.Lock()
	defer rounds.Unlock()
	t, ok := rounds.m[name]
	return ok && t.warned
}
