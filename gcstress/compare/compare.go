// Package compare is bench.txt and its comparison: the schema of bench.txt,
// the figures file of a gcstress results folder (its writer and reader,
// benchtxt.go, whose invariants that file states), and the comparison of two
// folders' bench.txt the way benchstat does, saying
// whether the newer regressed: `gcstress compare OLD NEW` is a thin
// command around Dirs and Report.WriteText.
//
// Per scenario (Key) and unit, a Row gives each side's centre
// (the median) with its 95% confidence interval (benchmath's
// AssumeNothing: order statistics, unbounded below 6 runs a side), the
// relative change of the centres with an interval (the ratio of the
// sides' interval ends: conservative), and the p-value of the two-sided
// Mann-Whitney U test (benchmath).
//
// Every row's Verdict is a benchgate.Verdict, the project's one
// comparison verdict, and one of six, decided in this order; each is
// named by its word (Word: the command's contract), then its value:
//   - "missing" (benchgate.Missing when only OLD has the figure,
//     benchgate.New when only NEW has it): one side has the figure and the
//     other does not (a kind, value size or scenario one run had and the
//     other did not, or that failed there; Row.Missing, Row.Only). It
//     passes unless Options.Strict: two runs of different kinds are not a
//     regression, but a gate that must see every figure fails on it.
//   - "same" (benchgate.Unchanged): the centres differ by less than the
//     unit's absolute floor (Unit.Floor: 0.01 objects/entry, 1
//     gc-cpu-ns/put, ...), or by at most Threshold of the old centre; or
//     the sides have enough runs for the U test and it finds no
//     difference (p >= Alpha, benchstat's "~"). A change the runs could
//     test and did not confirm is noise, not a finding.
//   - "inconclusive" (benchgate.Underpowered): past the floor and the
//     threshold (either way), but with too few runs a side for the U test
//     to reach p < Alpha at all (RunsFor: 4 a side at 0.05; -count 1
//     gives one). The row says how many runs a side would decide it
//     (Row.RunsNeeded). It fails the comparison only under
//     Options.Strict, and then only on a gated unit: the evidence points
//     neither way, so by default it is reported and passes; -strict is
//     for gates that must not pass undecided.
//   - "better" (benchgate.Improved): significant (p < Alpha) and past the
//     threshold in the good direction of the unit (Unit.Better).
//   - "regressed" (benchgate.Regressed): significant and past the
//     threshold in the bad direction, on a gated unit (Options.Gate). The
//     only verdict that always fails.
//   - "worse" (benchgate.Worse): what would be regressed on a unit that
//     is not gated: significant and past the threshold in the bad
//     direction. Reported, never failed.
//
// A unit bench.txt does not know (no direction) is named in the report's
// notes, not compared.
//
// Settings (settings.go): the report names, before any row, every
// setting the two runs differ in (Report.Settings: GOGC, GOMEMLIMIT, the
// rate, the mix, the key distribution, the Go version, GOEXPERIMENT, the
// build environment, the container, the machine, ...), and each row
// measured across one lists it (Row.Differs): its verdict stands, but it
// judges the settings as much as the code. What each side ran that the
// other did not is named there too (Report.Ran), and a side whose
// settings are known only from bench.txt (no summary.json) is said to be
// (Report.Unknown).
//
// Why alpha 0.05 (DefaultAlpha), where benchgate gates at 0.01: benchgate
// gates wall time over many short benchmarks run interleaved, where
// -count 10 is cheap and a low alpha keeps hundreds of rows from crying
// wolf; gcstress compare gates objects/entry (by default) over few runs
// of scenarios that take seconds to minutes each. There the threshold and
// the floor are what keep an unchanged engine from failing (its
// objects/entry moves by about 1% between runs, far under 10%), and the U
// test only has to confirm that a change past them is not one stray run.
// At 0.05 the documented -count 5 does that with room: five runs a side
// reach p=0.008 when every run moved and stay under 0.05 with two pairs
// out of order (p=0.032); at 0.01 five runs a side pass only when all ten
// are in order (p=0.008, one out of order is 0.016), and it takes -count
// 6 to allow two. `gcstress compare -alpha 0.01` judges as benchgate does.
//
// Invariants:
//   - Nothing passes by accident: a folder without a readable bench.txt,
//     two files with no scenario in common, a figure that is NaN,
//     infinite or negative (ErrBadFigure, naming side, row, unit and
//     value), or a row with more runs than the file's gcstress-count line
//     says it holds (ErrExtraRuns: a repeated line, two files joined) is
//     ErrBadInput, never a pass. Inputs are read under bench.txt's limits.
//   - The statistics only ever see finite, non-negative values: Compare
//     checks both Files before it computes anything.
//   - The package prints nothing and has no flags: WriteText writes to
//     the writer it is given. A Report is a plain value, safe to share
//     once returned.
package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/writegc/writegc/benchgate"

	"golang.org/x/perf/benchmath"
)

// Defaults of Options, and the confidence of every interval.
const (
	// DefaultAlpha is the U test's significance level; see the package
	// doc for why it is not benchgate's 0.01.
	DefaultAlpha     = 0.05
	DefaultThreshold = 0.10
	// MaxThreshold bounds Options.Threshold: beyond a tenfold change a
	// threshold passes everything, and is more likely a percentage
	// written for a fraction.
	MaxThreshold = 10.0
	Confidence   = 0.95
	// maxRuns bounds RunsFor's search.
	maxRuns = 100
)

// Errors. ErrBadFigure and ErrExtraRuns come wrapped together with
// ErrBadInput.
var (
	// ErrBadInput: a folder or bench.txt that cannot be compared (missing,
	// unreadable, not a bench.txt, nothing in common, bad figures).
	ErrBadInput = errors.New("bad input")
	// ErrBadOption: Options out of range.
	ErrBadOption = errors.New("bad option")
	// ErrBadFigure: a value that is NaN, infinite or negative, or a row
	// without values.
	ErrBadFigure = errors.New("bad figure")
	// ErrExtraRuns: a row with more values than the file's gcstress-count
	// (CountKey) rounds, or a gcstress-count that is not a
	// positive whole number.
	ErrExtraRuns = errors.New("more runs than gcstress-count")
)

// Options configures a comparison. The zero value is the defaults. A
// plain value.
type Options struct {
	// Alpha is the U test's significance level, in (0, 1); 0 means
	// DefaultAlpha.
	Alpha float64
	// Threshold is the relative change of the centre (0.10 is 10%) a row
	// must pass to be anything but same, in (0, MaxThreshold]; 0 means
	// DefaultThreshold.
	Threshold float64
	// Gate lists the units gated; nil means Gated().
	Gate []Unit
	// Strict makes inconclusive rows of gated units fail too
	// (Report.Failures).
	Strict bool
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
func Gated() []Unit { return []Unit{ObjectsPerEntry} }

// Validate returns an error wrapping ErrBadOption for a field out of range.
func (o Options) Validate() error {
	if o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("%w: alpha %g: want a value in (0, 1) like 0.05", ErrBadOption, o.Alpha)
	}
	if o.Threshold != 0 && !(o.Threshold > 0 && o.Threshold <= MaxThreshold) {
		return fmt.Errorf("%w: threshold %g: want a fraction in (0, %g] like 0.1 (10%%)", ErrBadOption, o.Threshold, MaxThreshold)
	}
	for _, u := range o.Gate {
		if u.Better() == Unknown {
			return fmt.Errorf("%w: gate: unknown figure %q (known: %v)", ErrBadOption, u, Units())
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Threshold = cmp.Or(o.Threshold, DefaultThreshold)
	if o.Gate == nil {
		o.Gate = Gated()
	}
	return o
}

// The verdicts a row can have (see the package doc), in benchgate's terms.
const (
	same         = benchgate.Unchanged
	better       = benchgate.Improved
	worse        = benchgate.Worse
	regressed    = benchgate.Regressed
	inconclusive = benchgate.Underpowered
	// missingInNew: only OLD has the figure; missingInOld: only NEW has it.
	missingInNew = benchgate.Missing
	missingInOld = benchgate.New
)

// Word is v as the report and the command name it: "same", "better",
// "worse", "regressed", "inconclusive" or "missing" for the verdicts a
// Row has (any other is benchgate's own name, v.String()). The words are
// the command's contract and do not change.
func Word(v benchgate.Verdict) string {
	switch v {
	case same:
		return "same"
	case better:
		return "better"
	case worse:
		return "worse"
	case regressed:
		return "regressed"
	case inconclusive:
		return "inconclusive"
	case missingInNew, missingInOld:
		return "missing"
	}
	return v.String()
}

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
	Key    Key
	Unit   Unit
	Better Direction
	// Gated: the unit is one of Options.Gate.
	Gated bool
	// Missing: one side has the figure and the other does not (Old.N or
	// New.N is 0); Only names the side that has it, "OLD" or "NEW".
	Missing  bool
	Only     string
	Old, New Centre
	// Delta is (new-old)/old of the centres (±Inf when old is 0 and new
	// is not, NaN when Missing); DeltaLo and DeltaHi bound it.
	Delta, DeltaLo, DeltaHi float64
	// P is the U test's p-value; NaN when not tested (Tested false).
	P float64
	// Tested: both sides have enough values for p < Alpha.
	Tested bool
	// Verdict is one of the six of the package doc; Word names it.
	Verdict benchgate.Verdict
	// RunsNeeded, on an inconclusive row, is the fewest runs a side with
	// which the U test can reach p < Alpha (RunsFor); 0 on other rows,
	// and when more than 100 would be needed.
	RunsNeeded int
	// Differs names the settings (Report.Settings) the row's two sides
	// were measured across; nil when they were measured alike (or a side
	// is missing).
	Differs []string
}

// Regressed reports whether r regressed (its Verdict is benchgate.Regressed).
func (r Row) Regressed() bool { return r.Verdict == regressed }

// fails reports whether r fails a comparison, strict or not.
func (r Row) fails(strict bool) bool {
	return r.Verdict == regressed || strict && (r.Missing || r.Gated && r.Verdict == inconclusive)
}

// Report is a comparison's outcome: its rows, in the old file's order,
// and notes on what it could not see.
type Report struct {
	Options  Options // the effective options
	Old, New string  // the files compared
	Rows     []Row
	Notes    []string
	// Settings are the settings the runs differ in (settings.go); Ran
	// says what one side ran and the other did not; Unknown, per side,
	// why its settings are known only from bench.txt.
	Settings []Setting
	Ran      []string
	Unknown  []string
}

// Regressions are the rows whose Verdict is benchgate.Regressed.
func (r *Report) Regressions() []Row { return r.filter(Row.Regressed) }

// Inconclusives are the inconclusive rows (Verdict benchgate.Underpowered),
// gated or not.
func (r *Report) Inconclusives() []Row {
	return r.filter(func(row Row) bool { return row.Verdict == inconclusive })
}

// Missings are the missing rows (Row.Missing: Verdict benchgate.Missing
// or benchgate.New).
func (r *Report) Missings() []Row {
	return r.filter(func(row Row) bool { return row.Missing })
}

// Failures are the rows that fail the comparison: the Regressions, and
// under Options.Strict the missing and the gated inconclusive rows too.
func (r *Report) Failures() []Row {
	return r.filter(func(row Row) bool { return row.fails(r.Options.Strict) })
}

func (r *Report) filter(keep func(Row) bool) []Row {
	var out []Row
	for _, row := range r.Rows {
		if keep(row) {
			out = append(out, row)
		}
	}
	return out
}

// Compare compares every series of old with the same scenario and unit of
// new, knowing the runs' settings from the files' configuration lines
// only: CompareSides with no summary.json.
func Compare(old, new *File, opts Options) (*Report, error) {
	return CompareSides(Side{Bench: old}, Side{Bench: new}, opts)
}

// CompareSides compares every series of old.Bench with the same scenario
// and unit of new.Bench (a series one side only has is a missing row,
// after OLD's in NEW's order) and names the settings the runs differ in.
// Errors: ErrBadOption for opts out of range; ErrBadInput when the files
// share no scenario (naming the settings that differ), or (with
// ErrBadFigure or ErrExtraRuns) when a file holds a value or a count of
// runs it cannot hold. Either comes with no Report.
func CompareSides(old, new Side, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := checkFile("OLD", old.Bench); err != nil {
		return nil, err
	}
	if err := checkFile("NEW", new.Bench); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	o, n := old.Bench, new.Bench
	rep := &Report{Options: opts, Old: o.Path, New: n.Path, Ran: ranDiff(o, n), Unknown: unknownSettings(old, new)}
	needed := RunsFor(opts.Alpha)
	var common []Key
	for _, s := range o.Series {
		if s.Unit.Better() == Unknown {
			continue
		}
		var nv []float64
		if ns := n.Find(s.Key, s.Unit); ns != nil {
			nv = ns.Values
			if !slices.Contains(common, s.Key) {
				common = append(common, s.Key)
			}
		}
		rep.Rows = append(rep.Rows, compareRow(s.Key, s.Unit, s.Values, nv, opts, needed))
	}
	for _, s := range n.Series {
		if s.Unit.Better() != Unknown && o.Find(s.Key, s.Unit) == nil {
			rep.Rows = append(rep.Rows, compareRow(s.Key, s.Unit, nil, s.Values, opts, needed))
		}
	}
	rep.Settings = settingsDiff(old, new, common)
	if len(common) == 0 {
		var differ []string
		for _, s := range settingsDiff(old, new, nil) {
			differ = append(differ, s.String())
		}
		why := ""
		if d := append(differ, rep.Ran...); len(d) > 0 {
			why = " (" + strings.Join(d, "; ") + ")"
		}
		return nil, fmt.Errorf("%w: %s and %s have no scenario figure in common%s", ErrBadInput, o.Path, n.Path, why)
	}
	markDiffers(rep)
	rep.Notes = notes(rep, o, n)
	return rep, nil
}

// markDiffers sets each compared row's Differs from rep.Settings.
func markDiffers(rep *Report) {
	for i := range rep.Rows {
		row := &rep.Rows[i]
		if row.Missing {
			continue
		}
		for _, s := range rep.Settings {
			if (s.Rows == nil || slices.Contains(s.Rows, row.Key.String())) && !slices.Contains(row.Differs, s.Name) {
				row.Differs = append(row.Differs, s.Name)
			}
		}
	}
}

// checkFile refuses what the statistics cannot take (a NaN does not end
// benchmath's sort) and more runs a row than the file says it holds.
func checkFile(side string, f *File) error {
	rounds := 0
	if v, ok := f.Config[CountKey]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%w: %w: %s %s: %s %q: want a positive whole number", ErrBadInput, ErrExtraRuns, side, f.Path, CountKey, v)
		}
		rounds = n
	}
	for _, s := range f.Series {
		name := fmt.Sprintf("%s %s: %s %s", side, f.Path, s.Key, s.Unit)
		if len(s.Values) == 0 {
			return fmt.Errorf("%w: %w: %s: no values", ErrBadInput, ErrBadFigure, name)
		}
		for _, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("%w: %w: %s: value %v: want a finite, non-negative figure", ErrBadInput, ErrBadFigure, name, v)
			}
		}
		if rounds > 0 && len(s.Values) > rounds {
			return fmt.Errorf("%w: %w: %s: %d results, but %s says the file holds %d round(s): a line is repeated "+
				"(were two bench.txt files joined?); `gcstress report DIR` rewrites it from the folder's runs",
				ErrBadInput, ErrExtraRuns, name, len(s.Values), CountKey, rounds)
		}
	}
	return nil
}

// compareRow compares one scenario's figure (one side may be empty: a
// missing row); needed is RunsFor(opts.Alpha).
func compareRow(k Key, u Unit, old, new []float64, opts Options, needed int) Row {
	row := Row{Key: k, Unit: u, Better: u.Better(), P: math.NaN(), Delta: math.NaN(), DeltaLo: math.NaN(), DeltaHi: math.NaN()}
	row.Gated = slices.Contains(opts.Gate, u)
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	so, sn := benchmath.NewSample(slices.Clone(old), th), benchmath.NewSample(slices.Clone(new), th)
	row.Old, row.New = centre(so), centre(sn)
	if len(old) == 0 || len(new) == 0 {
		row.Missing, row.Verdict, row.Only = true, missingInNew, "OLD"
		if len(old) == 0 {
			row.Verdict, row.Only = missingInOld, "NEW"
		}
		return row
	}
	row.Delta = delta(row.Old.Center, row.New.Center)
	row.DeltaLo, row.DeltaHi = deltaInterval(row.Old, row.New)
	if row.Tested = MinP(len(old), len(new)) < opts.Alpha; row.Tested {
		row.P = benchmath.AssumeNothing.Compare(so, sn).P
	}
	row.Verdict = judge(row, opts)
	if row.Verdict == inconclusive {
		row.RunsNeeded = needed
	}
	return row
}

// judge is the verdict of a row with both sides (the package doc's order).
func judge(r Row, o Options) benchgate.Verdict {
	change := r.Delta * -float64(r.Better) // > 0: new is worse
	switch {
	case math.Abs(r.New.Center-r.Old.Center) < r.Unit.Floor(), math.Abs(change) <= o.Threshold:
		return same
	case !r.Tested:
		return inconclusive
	case !(r.P < o.Alpha):
		return same
	case change < 0:
		return better
	case r.Gated:
		return regressed
	}
	return worse
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
// test can reach p < alpha (4 at 0.05, 5 at 0.01); 0 past 100 runs.
func RunsFor(alpha float64) int {
	for n := 1; n <= maxRuns; n++ {
		if MinP(n, n) < alpha {
			return n
		}
	}
	return 0
}

// runsText is RunsFor's n as the report writes it.
func runsText(n int) string {
	if n == 0 {
		return fmt.Sprintf("more than %d", maxRuns)
	}
	return strconv.Itoa(n)
}

// notes says what the comparison could not see: rows without a p-value
// and figures it did not compare (the settings that differ are the
// report's Settings).
func notes(rep *Report, old, new *File) []string {
	var out []string
	o := rep.Options
	untested, nInconclusive := 0, 0
	for _, r := range rep.Rows {
		if !r.Tested && !r.Missing {
			untested++
		}
		if r.Verdict == inconclusive {
			nInconclusive++
		}
	}
	if untested > 0 {
		out = append(out, fmt.Sprintf("%d row(s) have too few runs a side for p < %g (the U test needs %s a side); "+
			"%d of them past the %g%% threshold: inconclusive (they fail only with -strict, and only when gated); "+
			"run both sides with -count %s or more to decide them",
			untested, o.Alpha, runsText(RunsFor(o.Alpha)), nInconclusive, 100*o.Threshold, runsText(RunsFor(o.Alpha))))
	}
	var unknown []string
	for _, f := range []*File{old, new} {
		for _, s := range f.Series {
			if s.Unit.Better() == Unknown && !slices.Contains(unknown, string(s.Unit)) {
				unknown = append(unknown, string(s.Unit))
			}
		}
	}
	if len(unknown) > 0 {
		out = append(out, fmt.Sprintf("unit(s) bench.txt does not define, not compared (no better direction): %s", list(unknown)))
	}
	return out
}

// list is the first five of xs, comma-separated, and how many more.
func list(xs []string) string {
	if len(xs) <= 5 {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:5], ", "), len(xs)-5)
}
