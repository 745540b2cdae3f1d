package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
)

// Line is one result line of bench.txt: a scenario run's figures. A plain
// value.
type Line struct {
	Key    Key
	Iters  int64 // Puts; 1 for a capacity search
	Values []Value
}

// Value is one figure of a Line.
type Value struct {
	Value float64
	Unit  Unit
}

// Lines are the result lines of sum, in its order (the runs of its
// Results, then its capacity searches), under the package's rules.
func Lines(sum *results.Summary) []Line {
	var out []Line
	for _, r := range sum.Results {
		if l, ok := runLine(r); ok {
			out = append(out, l)
		}
	}
	for _, c := range sum.Capacity {
		k := Key{Set: results.SetCapacity, Kind: c.Kind, Value: c.Value, Env: c.Env}
		if vs := values(Value{c.SustainableMBps, SustainableMBps}); len(vs) > 0 {
			out = append(out, Line{Key: k, Iters: 1, Values: vs})
		}
	}
	return out
}

// runLine is r's line, and false when r has none: a capacity step, or a
// run whose load did not end normally after at least one Put. Frontier
// runs have none either: one kind's points differ in GOGC and GOMEMLIMIT,
// which a line's key does not name (summary.json's frontier[] has them).
func runLine(r results.Result) (Line, bool) {
	e := r.End
	if r.Scenario.Group == results.SetCapacity || r.Scenario.Group == results.SetFrontier || e == nil || e.Keys < 1 || r.Stopped != "" ||
		(e.Reason != results.StopKeys && e.Reason != results.StopDuration) {
		return Line{}, false
	}
	vs := []Value{{e.MBps, MBps}, {e.GCCPUNsPerPut, GCCPUNsPerPut}}
	if e.Entries > 0 {
		vs = append(vs, Value{e.ObjectsPerEntry, ObjectsPerEntry})
	}
	vs = append(vs, Value{e.PauseP99us * 1e3, PauseP99Ns})
	vs = append(vs, readerValues(e, r.Verdict.FewMixCycles())...) // readers.go
	vs = append(vs, traceValues(e)...)                            // mmu.go
	vs = values(vs...)
	return Line{Key: KeyOf(r.Scenario), Iters: e.Keys, Values: vs}, len(vs) > 0
}

// values keeps the finite, non-negative values of vs.
func values(vs ...Value) []Value {
	out := vs[:0]
	for _, v := range vs {
		if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) && v.Value >= 0 {
			out = append(out, v)
		}
	}
	return out
}

// Config is bench.txt's configuration lines for sum, in order: key and
// value pairs.
func Config(sum *results.Summary) [][2]string {
	cfg := [][2]string{{"goos", sum.GOOS}, {"goarch", sum.GOARCH}, {"cpu", sum.CPUModel}, {"goversion", sum.GoVersion}, {"commit", sum.Commit}}
	rounds := 1
	for _, r := range sum.Results {
		rounds = max(rounds, r.Scenario.Repeat)
	}
	for _, c := range sum.Capacity {
		rounds = max(rounds, c.Repeat)
	}
	cfg = append(cfg, [2]string{CountKey, strconv.Itoa(rounds)})
	out := cfg[:0]
	for _, kv := range cfg {
		if kv[1] = configValue(kv[1]); kv[1] != "" {
			out = append(out, kv)
		}
	}
	return out
}

// CountKey is the configuration key of the rounds a file holds (-count).
const CountKey = "gcstress-count"

// configValue is v as one line of printable text: control characters are
// spaces, and the ends are trimmed.
func configValue(v string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			return ' '
		}
		return r
	}, v))
}

// Write writes sum's bench.txt to w: the configuration lines, the unit
// metadata lines, a blank line and the result lines (Lines). A run with
// no line still gets the configuration and units. The first write error
// is returned.
func Write(w io.Writer, sum *results.Summary) error {
	bw := bufio.NewWriter(w)
	for _, kv := range Config(sum) {
		fmt.Fprintf(bw, "%s: %s\n", kv[0], kv[1])
	}
	lines := Lines(sum)
	used := usedUnits(lines)
	for _, u := range units {
		if !optionalUnit(u.unit) || used[u.unit] {
			fmt.Fprintf(bw, "Unit %s better=%s assume=nothing\n", u.unit, u.better)
		}
	}
	bw.WriteString("\n")
	for _, l := range lines {
		fmt.Fprintf(bw, "%s \t%d", l.Key.Name(), l.Iters)
		for _, v := range l.Values {
			fmt.Fprintf(bw, "\t%s %s", strconv.FormatFloat(v.Value, 'g', -1, 64), v.Unit)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}
