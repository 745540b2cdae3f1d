// Package compare compares the figures of two gcstress results folders
// (their bench.txt, package benchtxt) the way benchstat does, and says
// whether the newer regressed: `gcstress compare OLD NEW` is a thin
// command around Dirs and Report.WriteText.
//
// Per scenario (benchtxt.Key) and unit, a Row gives each side's centre
// (the median) with its 95% confidence interval (benchmath's
// AssumeNothing: order statistics, unbounded below 6 runs a side), the
// relative change of the centres with an interval (the ratio of the
// sides' interval ends: conservative), and the p-value of the two-sided
// Mann-Whitney U test (benchmath).
//
// Invariants:
//   - A gated row regresses when its change is significant (p < Alpha)
//     AND worse, in its unit's direction (benchtxt.Unit.Better), by more
//     than Threshold of the old centre. Both are needed: the test alone
//     flags tiny shifts on a quiet machine, the threshold alone flags noise.
//   - When the runs a side holds cannot reach p < Alpha at all (one run
//     each, -count 1: no p-value is possible; at Alpha 0.05 the U test
//     needs at least 4 runs a side, RunsFor), the row is judged by the threshold
//     alone and says so ("n=1, no significance"); it still regresses past
//     the threshold, so -count 1 gates big changes only.
//   - Gated by default: objects/entry (Gated: the timing and CPU figures
//     drift between two runs made one after the other); Options.Gate
//     names others: MB/s and sustainable-MB/s (higher is better),
//     gc-cpu-ns/put and pause-p99-ns (lower is better). A figure the old folder has and the new
//     one lacks (the scenario failed or did not run) fails a gated row
//     too: nothing passes by going missing. A figure only the new folder
//     has is reported, never gated.
//   - Nothing passes by accident: a folder without a readable bench.txt,
//     or two files with no scenario in common, is ErrBadInput, never a
//     pass. Inputs are read under benchtxt's limits.
//   - The package prints nothing and has no flags: WriteText writes to
//     the writer it is given. A Report is a plain value, safe to share
//     once returned.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/writegc/writegc/gcstress/benchtxt"
	"golang.org/x/perf/benchmath"
)

// Defaults of Options, and the confidence of every interval.
const (
	DefaultAlpha     = 0.05
	DefaultThreshold = 0.10
	// MaxThreshold bounds Options.Threshold: beyond a tenfold change a
	// threshold passes everything, and is more likely a percentage
	// written for a fraction.
	MaxThreshold = 10.0
	Confidence   = 0.95
)

// Errors.
var (
	// ErrBadInput: a folder or bench.txt that cannot be compared (missing,
	// unreadable, not a bench.txt, nothing in common).
	ErrBadInput = errors.New("bad input")
	// ErrBadOption: Options out of range.
	ErrBadOption = errors.New("bad option")
)

// Options configures a comparison. The zero value is the defaults. A
// plain value.
type Options struct {
	// Alpha is the U test's significance level, in (0, 1); 0 means
	// DefaultAlpha.
	Alpha float64
	// Threshold is the relative change of the centre (0.10 is 10%) a
	// gated row must pass in the bad direction to regress, in (0,
	// MaxThreshold]; 0 means DefaultThreshold.
	Threshold float64
	// Gate lists the units gated; nil means Gated().
	Gate []benchtxt.Unit
}

// Gated is the units gated by default: objects per entry, the figure a
// change to an engine's layout moves and the machine does not. The timing
// and CPU figures (MB/s, pause p99, GC CPU-ns per Put, sustainable MB/s)
// are compared and reported but gated only when asked (Options.Gate, the
// command's -gate): two folders are run one after the other, not
// interleaved, and on the project's 2-vCPU VM two runs of the same commit
// a minute apart (-count 5 each) differed by -25% MB/s, +23% GC CPU-ns per
// Put (p 0.016) and +20% pause p99 (p 0.040), which all-figure gating
// called regressions (results/gcstress/compare).
func Gated() []benchtxt.Unit { return []benchtxt.Unit{benchtxt.ObjectsPerEntry} }

// Validate returns an error wrapping ErrBadOption for a field out of range.
func (o Options) Validate() error {
	if o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("%w: alpha %g: want a value in (0, 1)", ErrBadOption, o.Alpha)
	}
	if o.Threshold != 0 && !(o.Threshold > 0 && o.Threshold <= MaxThreshold) {
		return fmt.Errorf("%w: threshold %g: want a fraction in (0, %g] (0.10 is 10%%)", ErrBadOption, o.Threshold, MaxThreshold)
	}
	for _, u := range o.Gate {
		if u.Better() == benchtxt.Unknown {
			return fmt.Errorf("%w: gate: unknown figure %q (known: %v)", ErrBadOption, u, benchtxt.Units())
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Gate == nil {
		o.Gate = Gated()
	}
	return o
}

// Verdict is a row's outcome. The values are what the report prints.
type Verdict string

// Verdicts. Only Worse on a gated row, and Missing on a gated row, fail.
const (
	Same    Verdict = "~"        // not significant (p >= Alpha)
	Within  Verdict = "ok"       // a change within the threshold
	Better  Verdict = "better"   // better by more than the threshold
	Worse   Verdict = "worse"    // worse by more than the threshold
	Missing Verdict = "missing"  // in OLD only
	Added   Verdict = "new"      // in NEW only
	Unknown Verdict = "no order" // a unit without a direction: reported only
)

// Centre is one side of a row: the median of its N values and the
// median's confidence interval (±Inf ends when N is too small).
type Centre struct {
	N              int
	Center, Lo, Hi float64
	// Range is the interval as benchstat prints it ("4%", "∞").
	Range string
}

// Row is the comparison of one scenario's figure.
type Row struct {
	Key    benchtxt.Key
	Unit   benchtxt.Unit
	Better benchtxt.Better
	// Gated: the unit is one of Options.Gate (and has a direction).
	Gated    bool
	Old, New Centre
	// Delta is (new-old)/old of the centres (±Inf when old is 0 and new
	// is not, NaN when a side is missing); DeltaLo and DeltaHi bound it.
	Delta, DeltaLo, DeltaHi float64
	// P is the U test's p-value; NaN when not tested (Tested false).
	P float64
	// Tested: both sides have values and enough of them for p < Alpha.
	Tested  bool
	Verdict Verdict
}

// Regressed reports whether r fails the comparison.
func (r Row) Regressed() bool { return r.Gated && (r.Verdict == Worse || r.Verdict == Missing) }

// Report is a comparison's outcome: its rows, in the old file's order
// (then the new file's new figures), and notes on what it could not see.
type Report struct {
	Options  Options // the effective options
	Old, New string  // the files compared
	Rows     []Row
	Notes    []string
}

// Regressions are the rows that fail the comparison.
func (r *Report) Regressions() []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Regressed() {
			out = append(out, row)
		}
	}
	return out
}

// Compare compares every series of old with the same scenario and unit of
// new. Errors: ErrBadOption for opts out of range; ErrBadInput when the
// files share no scenario. Either comes with no Report.
func Compare(old, new *benchtxt.File, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	rep := &Report{Options: opts, Old: old.Path, New: new.Path}
	common := false
	for _, s := range old.Series {
		n := new.Find(s.Key, s.Unit)
		var nv []float64
		if n != nil {
			nv, common = n.Values, true
		}
		rep.Rows = append(rep.Rows, compareRow(s.Key, s.Unit, s.Values, nv, opts))
	}
	for _, s := range new.Series {
		if old.Find(s.Key, s.Unit) == nil {
			rep.Rows = append(rep.Rows, compareRow(s.Key, s.Unit, nil, s.Values, opts))
		}
	}
	if !common {
		return nil, fmt.Errorf("%w: %s and %s have no scenario figure in common", ErrBadInput, old.Path, new.Path)
	}
	rep.Notes = notes(rep, old, new)
	return rep, nil
}

// compareRow compares one scenario's figure (old or new may be empty).
func compareRow(k benchtxt.Key, u benchtxt.Unit, old, new []float64, opts Options) Row {
	row := Row{Key: k, Unit: u, Better: u.Better(), P: math.NaN(), Delta: math.NaN(), DeltaLo: math.NaN(), DeltaHi: math.NaN()}
	row.Gated = row.Better != benchtxt.Unknown && slices.Contains(opts.Gate, u)
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	so, sn := benchmath.NewSample(slices.Clone(old), th), benchmath.NewSample(slices.Clone(new), th)
	row.Old, row.New = centre(so), centre(sn)
	switch {
	case len(new) == 0:
		row.Verdict = Missing
		return row
	case len(old) == 0:
		row.Verdict = Added
		return row
	}
	row.Delta = delta(row.Old.Center, row.New.Center)
	row.DeltaLo, row.DeltaHi = deltaInterval(row.Old, row.New)
	if row.Tested = MinP(len(old), len(new)) < opts.Alpha; row.Tested {
		row.P = benchmath.AssumeNothing.Compare(so, sn).P
	}
	worse := row.Delta * -float64(row.Better) // > 0: new is worse
	switch {
	case row.Better == benchtxt.Unknown:
		row.Verdict = Unknown
	case row.Tested && !(row.P < opts.Alpha):
		row.Verdict = Same
	case worse > opts.Threshold:
		row.Verdict = Worse
	case -worse > opts.Threshold:
		row.Verdict = Better
	default:
		row.Verdict = Within
	}
	return row
}

// centre summarises a sample (N 0: no values).
func centre(s *benchmath.Sample) Centre {
	if len(s.Values) == 0 {
		return Centre{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	return Centre{N: len(s.Values), Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Range: sum.PctRangeString()}
}

// delta is (n-o)/o: 0 when both are 0, ±Inf when only o is.
func delta(o, n float64) float64 {
	switch {
	case o != 0:
		return n/o - 1
	case n > 0:
		return math.Inf(1)
	case n < 0:
		return math.Inf(-1)
	}
	return 0
}

// deltaInterval bounds the change of the centres by the ends of the two
// sides' intervals: [new.Lo/old.Hi - 1, new.Hi/old.Lo - 1], unbounded
// where an end is (too few values) or old's low end is not positive.
func deltaInterval(o, n Centre) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if !math.IsInf(o.Hi, 0) && !math.IsInf(n.Lo, 0) && o.Hi > 0 {
		lo = n.Lo/o.Hi - 1
	}
	if !math.IsInf(o.Lo, 0) && !math.IsInf(n.Hi, 0) && o.Lo > 0 {
		hi = n.Hi/o.Lo - 1
	}
	return lo, hi
}

// MinP is the smallest p-value the U test can give for samples of n1 and
// n2 values: its p-value for two samples that do not overlap at all.
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	a, b := make([]float64, n1), make([]float64, n2)
	for i := range a {
		a[i] = float64(i)
	}
	for i := range b {
		b[i] = float64(n1 + i)
	}
	th := &benchmath.DefaultThresholds
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(a, th), benchmath.NewSample(b, th)).P
}

// RunsFor is the fewest runs a side (the same on both) with which the U
// test can reach p < alpha (4 at 0.05); 0 past 100 runs.
func RunsFor(alpha float64) int {
	for n := 1; n <= 100; n++ {
		if MinP(n, n) < alpha {
			return n
		}
	}
	return 0
}

// notes says what the comparison could not see: rows judged by the
// threshold alone, and machines that differ.
func notes(rep *Report, old, new *benchtxt.File) []string {
	var out []string
	untested := 0
	for _, r := range rep.Rows {
		if !r.Tested && r.Old.N > 0 && r.New.N > 0 {
			untested++
		}
	}
	if untested > 0 {
		out = append(out, fmt.Sprintf("%d row(s) have too few runs a side for p < %g: judged by the %g%% threshold alone, "+
			"without significance; run both sides with -count %d or more for the U test",
			untested, rep.Options.Alpha, 100*rep.Options.Threshold, RunsFor(rep.Options.Alpha)))
	}
	for _, key := range []string{"goos", "goarch", "cpu", "goversion"} {
		if a, b := old.Config[key], new.Config[key]; a != "" && b != "" && a != b {
			out = append(out, fmt.Sprintf("%s differs: %q (OLD) and %q (NEW): the runs were not on the same machine and toolchain", key, a, b))
		}
	}
	return out
}
