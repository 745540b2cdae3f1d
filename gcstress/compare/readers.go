package compare

import (
	"github.com/writegc/writegc/gcstress/results"
)

// The units of a mixed workload's line (Scenario.Mixed): the p99 and
// p99.9 from intended start of each operation type it ran, and the p99 of
// its reads inside and outside mark (when they were attributed). A file
// declares them only when one of its lines holds them, so a write-only
// run's bench.txt is what it was.
const (
	ReadP99Ns            Unit = "read-p99-ns"
	ReadP999Ns           Unit = "read-p999-ns"
	UpdateP99Ns          Unit = "update-p99-ns"
	UpdateP999Ns         Unit = "update-p999-ns"
	InsertP99Ns          Unit = "insert-p99-ns"
	InsertP999Ns         Unit = "insert-p999-ns"
	ScanP99Ns            Unit = "scan-p99-ns"
	ScanP999Ns           Unit = "scan-p999-ns"
	RMWP99Ns             Unit = "rmw-p99-ns"
	RMWP999Ns            Unit = "rmw-p999-ns"
	ReadInMarkP99Ns      Unit = "read-in-mark-p99-ns"
	ReadOutsideMarkP99Ns Unit = "read-outside-mark-p99-ns"
)

// opUnits are each operation type's units, keyed by its name in the end
// record's ops.
var opUnits = []struct {
	op        string
	p99, p999 Unit
}{
	{"read", ReadP99Ns, ReadP999Ns}, {"update", UpdateP99Ns, UpdateP999Ns}, {"insert", InsertP99Ns, InsertP999Ns},
	{"scan", ScanP99Ns, ScanP999Ns}, {"rmw", RMWP99Ns, RMWP999Ns},
}

// mixedUnit says whether u is one of a mixed workload's units.
func mixedUnit(u Unit) bool {
	for _, o := range opUnits {
		if u == o.p99 || u == o.p999 {
			return true
		}
	}
	return u == ReadInMarkP99Ns || u == ReadOutsideMarkP99Ns
}

// MixSet is the set of a mixed workload's lines: "mix-b".
func MixSet(mix string) string { return "mix-" + mix }

// readerValues are e's mixed-workload figures (none for a write-only run);
// no in-mark figure when the run's collector hardly ran (fewCycles: its
// verdict, results.Health.FewMixCycles), where it would compare as a
// measurement.
func readerValues(e *results.Sample, fewCycles bool) []Value {
	var vs []Value
	for _, u := range opUnits {
		if o, ok := e.Ops[u.op]; ok && o.N > 0 {
			vs = append(vs, Value{float64(o.ILatP99), u.p99}, Value{float64(o.ILatP999), u.p999})
		}
	}
	if e.ReadInMark != nil && e.ReadInMark.N > 0 && !fewCycles {
		vs = append(vs, Value{float64(e.ReadInMark.ILatP99), ReadInMarkP99Ns})
	}
	if e.ReadOutsideMark != nil && e.ReadOutsideMark.N > 0 {
		vs = append(vs, Value{float64(e.ReadOutsideMark.ILatP99), ReadOutsideMarkP99Ns})
	}
	return vs
}

// usedUnits is the units lines hold.
func usedUnits(lines []Line) map[Unit]bool {
	used := map[Unit]bool{}
	for _, l := range lines {
		for _, v := range l.Values {
			used[v.Unit] = true
		}
	}
	return used
}
