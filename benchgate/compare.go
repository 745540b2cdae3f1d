package benchgate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/writegc/writegc/internal/stat"
)

// Default thresholds, and the largest threshold allowed.
const (
	DefaultAlpha     = 0.01
	DefaultThreshold = 0.10
	// MaxThreshold (100%: twice as slow) bounds Options.Threshold: a larger
	// one would let almost any regression pass, and is more likely a
	// percentage written as a fraction (10 for 10%) than a wish.
	MaxThreshold = 1.0
)

// Options configures Compare. The zero value means the defaults. Options is a
// plain value; it holds no state across comparisons. Validate states the
// ranges; Compare refuses options outside them.
type Options struct {
	// Alpha is the significance level of the U test, in (0, 1); 0 means
	// DefaultAlpha.
	Alpha float64
	// Power is the probability of detection a row's minimum detectable
	// effect (Row.MDE) is computed for, in (0, 1); 0 means DefaultPower.
	Power float64
	// Threshold is the relative change of the median, as a fraction (0.10 is
	// 10%), that a significant change must exceed to regress, at most
	// MaxThreshold; 0 means DefaultThreshold, a negative value means no
	// threshold. It must be finite.
	Threshold float64
	// Accepted lists regressions that pass (see Acceptance). Expiry is the
	// caller's to check (CheckExpiry): Compare reads no clock.
	Accepted []*Acceptance
	// Thresholds, when not nil, gives calibrated per-row thresholds that
	// replace Threshold for the rows it lists (a unit's own `gate=` wins over
	// both). Its machine must match the head's like the base's does.
	Thresholds *Thresholds
	// AllowCrossMachine makes differing machines (see CheckMachines) a
	// warning in Report.Notes instead of ErrCrossMachine.
	AllowCrossMachine bool
	// Rounds, when > 0, is the number of rounds each side ran (RunConfig.Count,
	// `benchgate run -count`): a Key a side has with fewer values than Rounds
	// is Incomplete (ErrMissingRounds), since a gate never passes on missing
	// data. 0 checks nothing (files of unknown provenance); it must not be
	// negative.
	Rounds int
}

// Validate returns an error wrapping errBadOption when a field is NaN,
// infinite or out of range, or an acceptance is nil.
func (o Options) Validate() error {
	if o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("%w: Alpha %g: want a value in (0, 1), or 0 for %g", errBadOption, o.Alpha, DefaultAlpha)
	}
	if o.Power != 0 && !(o.Power > 0 && o.Power < 1) {
		return fmt.Errorf("%w: Power %g: want a value in (0, 1), or 0 for %g", errBadOption, o.Power, DefaultPower)
	}
	if math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0) || o.Threshold > MaxThreshold {
		return fmt.Errorf("%w: Threshold %g: want a finite value at most %g", errBadOption, o.Threshold, MaxThreshold)
	}
	if o.Rounds < 0 {
		return fmt.Errorf("%w: Rounds %d: want 0 (no check) or more", errBadOption, o.Rounds)
	}
	for i, a := range o.Accepted {
		if a == nil || a.Pattern == nil {
			return fmt.Errorf("%w: Accepted[%d] has no pattern", errBadOption, i)
		}
	}
	return nil
}

// checkSamples refuses what Parse never builds, so that the statistics (which
// do not terminate on a NaN) only ever see finite, non-negative values and
// every Key of a Set has at least one.
func checkSamples(side string, s *Set) error {
	if s == nil {
		return fmt.Errorf("%w: %s: nil Set", errBadSample, side)
	}
	for _, k := range s.Keys {
		if len(s.Samples[k]) == 0 {
			return fmt.Errorf("%w: %s %s %s: no values", errBadSample, side, k.Name, k.Unit)
		}
	}
	for k, xs := range s.Samples {
		for _, v := range xs {
			if msg := badValue(v); msg != "" {
				return fmt.Errorf("%w: %s %s %s: value %v: %s", errBadSample, side, k.Name, k.Unit, v, msg)
			}
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Power = cmp.Or(o.Power, DefaultPower)
	o.Threshold = cmp.Or(o.Threshold, DefaultThreshold)
	if o.Threshold < 0 {
		o.Threshold = 0
	}
	return o
}

// Verdict is the outcome of one row: the project's one comparison
// verdict, also gcstress compare's (package gcstress/compare names its
// rows' verdicts in its own words and fails on them by its own rules).
type Verdict uint8

// Verdicts. In benchgate only Regressed fails the gate; Missing,
// Underpowered and Incomplete make the comparison an error; Noisy makes it
// inconclusive (see Report.Noisy). New verdicts are added at the end, so
// the values of the others never change.
const (
	Unchanged    Verdict = iota // not significant (p >= alpha), or equal exact values
	Within                      // significant but within the threshold
	Improved                    // significant and better by more than the threshold (or any exact decrease)
	Regressed                   // significant and worse by more than the threshold (or any exact increase)
	Accepted                    // would be Regressed, but an Acceptance covers it
	NotGated                    // the unit's direction is unknown: reported only
	New                         // only the head has it
	Missing                     // only the base has it: an error
	Underpowered                // too few samples to ever reach p < alpha: an error
	// Noisy: the row would pass (~ or ok), but its minimum detectable
	// effect (Row.MDE) exceeds its threshold, so a regression of the
	// threshold's size could hide in it: too noisy to judge. A significant
	// regression stays Regressed, a significant improvement Improved.
	Noisy
	// Incomplete: a side has the benchmark but fewer values than
	// Options.Rounds (a round produced no result for it): an error.
	Incomplete
	// Unconfirmed: the row regressed in the first rounds, but not in the
	// confirming rerun (Report.Confirm): it passes, its first figures
	// shown.
	Unconfirmed
	// Worse: significant and worse by more than the threshold on a unit
	// not gated: reported, never failed. benchgate gates every unit with
	// a direction, so only gcstress compare gives it.
	Worse
)

func (v Verdict) String() string {
	return [...]string{"~", "ok", "improved", "REGRESSED", "accepted", "not gated", "new", "MISSING IN HEAD", "UNDERPOWERED",
		"noisy", "INCOMPLETE", "not confirmed", "worse"}[v]
}

// Row is the comparison of one Key.
type Row struct {
	Key
	Direction Direction
	// Exact: the unit was compared as exact values (any change counts).
	Exact bool
	// NBase, NHead: sample sizes.
	NBase, NHead int
	// Base, Head: the medians (exact units: the most frequent value).
	Base, Head float64
	// Delta is (Head-Base)/Base; NaN when a side is missing, ±Inf when Base is 0.
	Delta float64
	// P is the U test's p-value; NaN when not tested (exact units, missing sides).
	P float64
	// Noise is the row's own noise: the larger of the two sides'
	// MedianUncertainty, the half-width of its median's 95% interval
	// relative to the median (1.57 IQR/√n over it); NaN when not measured (exact rows, a side
	// missing, an Incomplete row).
	Noise float64
	// MDE is the row's minimum detectable effect: the smallest shift of the
	// median, relative to the base's, that the U test at Options.Alpha
	// detects with probability Options.Power at the rounds each side ran
	// (see the package function MDE); MDEAbs is the same in the unit's own
	// terms. NaN when not measured (exact and not-gated rows, a side
	// missing, an Incomplete row), +Inf when the rounds cannot detect any
	// change. A row is Noisy when its MDE exceeds its threshold.
	MDE, MDEAbs float64
	// RoundsNeeded, for a Noisy row, is the rounds a side that would bring
	// its MDE under the threshold (RoundsFor, with the spreads of these
	// rounds); 0 when more than MaxCount would be needed.
	RoundsNeeded int
	Verdict      Verdict
	// Note explains the verdict: the acceptance reason, warnings.
	Note string
	// Threshold is the threshold applied (0 for exact rows): a fraction of
	// the base median, or with ThresholdAbs an amount in the unit's terms.
	// ThresholdFrom says where it came from: "default", "calibrated FILE"
	// or "unit gate=SPEC".
	Threshold     float64
	ThresholdAbs  bool
	ThresholdFrom string
	// ThresholdFloor, when not 0, is an absolute amount (in the unit's
	// terms) the change must also exceed: a `gate=N%,Mpt` unit gate.
	ThresholdFloor float64
	// Confirm says whether a confirming rerun judged a row that regressed
	// in the first rounds (Report.Confirm): Confirmed (still Regressed) or
	// NotConfirmed (now Unconfirmed); NotRerun otherwise.
	Confirm Confirm
}

// Report is the result of Compare. It is a plain value, safe to read from
// several goroutines once returned.
type Report struct {
	Options   Options // the effective options (defaults filled in)
	BaseFiles []string
	HeadFiles []string
	Rows      []Row
	// Notes are report-level warnings (e.g. unused acceptances, machine
	// keys one side does not state).
	Notes []string
	// Info lines describe the comparison (the base chosen and why); the
	// caller adds them, the reports print them above the table.
	Info []string
	// Profiles say where regressed benchmarks got slower; the caller adds
	// them (see DiffProfileFiles), the reports print them below the table.
	Profiles []ProfileDiff
	// Confirmed: Confirm judged the regressed rows by a confirming rerun.
	Confirmed bool
}

// Count returns the number of rows with verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == v {
			n++
		}
	}
	return n
}

// Regressed reports whether any row regressed (accepted ones do not count).
func (r *Report) Regressed() bool { return r.Count(Regressed) > 0 }

// Compare compares every Key of base with the same Key of head.
//
// Errors: errBadOption (no Report) for options that fail Validate,
// errBadSample (no Report) for a Set holding a NaN, infinite or negative value
// or a Key without values (a Set from Parse never does), errNoCommon (no
// Report) when no name is shared, errUnitConflict (no Report);
// ErrMissingInHead, ErrUnderpowered and ErrMissingRounds (with
// Options.Rounds) come with the full Report, whose rows show which
// benchmarks caused them. Any of these errors means the comparison must not
// be taken as a pass. Noisy rows are no error: the Report says so
// (Inconclusive, NoiseAdvice, and a note).
func Compare(base, head *Set, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := errors.Join(checkSamples("base", base), checkSamples("head", head)); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	units, err := mergeUnits(base.Units, head.Units)
	if err != nil {
		return nil, err
	}
	machineNotes, err := checkSides(base, head, opts)
	if err != nil {
		return nil, err
	}
	common := false
	for _, k := range base.Keys {
		if _, ok := head.Samples[k]; ok {
			common = true
			break
		}
	}
	if !common {
		return nil, fmt.Errorf("%w (base: %s; head: %s)", errNoCommon, strings.Join(base.Files, ", "), strings.Join(head.Files, ", "))
	}
	rep := &Report{Options: opts, BaseFiles: base.Files, HeadFiles: head.Files, Notes: machineNotes}
	used := make([]bool, len(opts.Accepted))
	for _, k := range base.Keys {
		row := compareKey(k, base.Samples[k], head.Samples[k], units, opts)
		if row.Verdict == Regressed {
			for i, a := range opts.Accepted {
				if a.Matches(k) {
					row.Verdict, row.Note, used[i] = Accepted, joinNote("accepted: "+a.Reason, row.Note), true
					break
				}
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, k := range head.Keys {
		if _, ok := base.Samples[k]; !ok {
			rep.Rows = append(rep.Rows, newRow(k, head.Samples[k], units, opts))
		}
	}
	for i, a := range opts.Accepted {
		if !used[i] {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s:%d: accepted regression %q matched no regression", a.File, a.Line, a.Pattern))
		}
	}
	if n := rep.NoiseAdvice(); n != "" {
		rep.Notes = append(rep.Notes, "too noisy to judge: "+n)
	}
	return rep, rowErrors(rep.Rows, opts)
}

// newRow is the row of a Key only the head has: New, or Incomplete when the
// head has fewer values than Options.Rounds.
func newRow(k Key, h []float64, units benchfmt.UnitMetadataMap, opts Options) Row {
	row := Row{Key: k, Direction: DirectionOf(k.Unit, units), NHead: len(h),
		Base: math.NaN(), Head: median(h), Delta: math.NaN(), P: math.NaN(), Noise: math.NaN(), MDE: math.NaN(), MDEAbs: math.NaN(), Verdict: New}
	if opts.Rounds > 0 && len(h) < opts.Rounds {
		row.Verdict, row.Note = Incomplete, fmt.Sprintf("head: %d of %d rounds (new in the head)", len(h), opts.Rounds)
	}
	return row
}

// rowErrors returns the errors the rows' verdicts make: ErrMissingInHead,
// ErrUnderpowered and ErrMissingRounds, each naming its rows.
func rowErrors(rows []Row, opts Options) error {
	var missing, weak, short []string
	for _, row := range rows {
		switch row.Verdict {
		case Missing:
			missing = append(missing, row.Name+" "+row.Unit)
		case Underpowered:
			weak = append(weak, row.Name+" "+row.Unit)
		case Incomplete:
			short = append(short, row.Name+" "+row.Unit+" ("+row.Note+")")
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrMissingInHead, strings.Join(missing, ", ")))
	}
	if len(weak) > 0 {
		errs = append(errs, fmt.Errorf("%w at alpha %g: %s", ErrUnderpowered, opts.Alpha, strings.Join(weak, ", ")))
	}
	if len(short) > 0 {
		errs = append(errs, fmt.Errorf("%w (%d asked): %s", ErrMissingRounds, opts.Rounds, strings.Join(short, ", ")))
	}
	return errors.Join(errs...)
}

// checkSides compares the machines of base, head and the thresholds file:
// ErrCrossMachine, or with AllowCrossMachine a warning, for differing strict
// keys; notes for unknown and noted keys.
func checkSides(base, head *Set, opts Options) ([]string, error) {
	hfp := head.Fingerprint()
	bh := CheckMachines("base", base.Fingerprint(), "head", hfp)
	var compared []string
	bh.Diffs, compared = allowCompared(bh.Diffs, comparedEnvKeys(base, head))
	checks := []MachineCheck{bh}
	if t := opts.Thresholds; t != nil {
		name := t.File
		if name == "" {
			name = "thresholds"
		}
		checks = append(checks, CheckMachines(name, t.fingerprint(), "head", hfp))
	}
	var diffs []string
	notes := compared
	for _, c := range checks {
		diffs = append(diffs, c.Diffs...)
		for _, u := range c.Unknown {
			notes = append(notes, "machine "+u+": not checked")
		}
		for _, n := range c.Notes {
			notes = append(notes, "machine differs (not refused): "+n)
		}
	}
	if len(diffs) > 0 {
		if !opts.AllowCrossMachine {
			return nil, fmt.Errorf("%w: %s", ErrCrossMachine, strings.Join(diffs, "; "))
		}
		notes = append([]string{"WARNING: comparing across machines: " + strings.Join(diffs, "; ")}, notes...)
	}
	return notes, nil
}

// allowCompared removes from diffs those of the keys allowed (a strict
// machine key set by an environment variable whose value base and head
// compare; see comparedEnvKeys) and returns a note for each one removed,
// naming the difference and why it is allowed.
func allowCompared(diffs []string, allowed map[string]string) (kept, notes []string) {
	for _, d := range diffs {
		key, _, _ := strings.Cut(d, ":")
		if why, ok := allowed[key]; ok && strings.Contains(d, " vs ") {
			notes = append(notes, "machine "+d+": "+why)
			continue
		}
		kept = append(kept, d)
	}
	return kept, notes
}

// rowThreshold returns the threshold of k: the unit's own gate=, else the
// calibrated one, else opts.Threshold.
func rowThreshold(k Key, units benchfmt.UnitMetadataMap, opts Options) (th float64, abs bool, floor float64, from string) {
	if g, ok := UnitGateOf(k.Unit, units); ok {
		return g.Amount, g.Absolute, g.Floor, "unit gate=" + g.Spec
	}
	if th, ok := opts.Thresholds.Get(k); ok {
		return th, false, 0, "calibrated " + opts.Thresholds.File
	}
	return opts.Threshold, false, 0, "default"
}

func compareKey(k Key, b, h []float64, units benchfmt.UnitMetadataMap, opts Options) Row {
	row := Row{Key: k, Direction: DirectionOf(k.Unit, units), NBase: len(b), NHead: len(h),
		Base: median(b), Head: median(h), Delta: math.NaN(), P: math.NaN(), Noise: math.NaN(), MDE: math.NaN(), MDEAbs: math.NaN()}
	if len(h) == 0 {
		row.Verdict = Missing
		return row
	}
	if short := shortRounds(len(b), len(h), opts.Rounds); short != "" {
		row.Verdict, row.Note = Incomplete, short
		return row
	}
	var notes []string
	if IsExact(k.Unit, units) {
		bm, bConst := mode(b)
		hm, hConst := mode(h)
		if bConst && hConst {
			row.Exact, row.Base, row.Head = true, bm, hm
			row.Delta = delta(bm, hm)
			switch {
			case bm == hm:
				row.Verdict = Unchanged
			case row.Direction == DirUnknown:
				row.Verdict, row.Note = NotGated, notGatedNote(k.Unit, units)
			case (hm-bm)*float64(row.Direction) < 0:
				row.Verdict = Regressed
			default:
				row.Verdict = Improved
			}
			return row
		}
		notes = append(notes, fmt.Sprintf("declared exact but values vary (base %g..%g, head %g..%g): compared as timed",
			slices.Min(b), slices.Max(b), slices.Min(h), slices.Max(h)))
	}
	row.Delta = delta(row.Base, row.Head)
	row.Threshold, row.ThresholdAbs, row.ThresholdFloor, row.ThresholdFrom = rowThreshold(k, units, opts)
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	cmp := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(b), th), benchmath.NewSample(slices.Clone(h), th))
	row.P = cmp.P
	worse := row.Delta * float64(row.Direction) * -1 // > 0 when head is worse
	worseAbs := (row.Head - row.Base) * float64(row.Direction) * -1
	if row.ThresholdAbs {
		worse = worseAbs
	}
	switch {
	case row.Direction == DirUnknown:
		row.Verdict = NotGated
		notes = append(notes, notGatedNote(k.Unit, units))
	case minUTestP(len(b), len(h)) >= opts.Alpha:
		row.Verdict = Underpowered
		notes = append(notes, fmt.Sprintf("n=%d+%d cannot reach p < %g", len(b), len(h), opts.Alpha))
	case !(cmp.P < opts.Alpha):
		row.Verdict = Unchanged
	case worse > row.Threshold && worseAbs > row.ThresholdFloor:
		row.Verdict = Regressed
	case -worse > row.Threshold && -worseAbs > row.ThresholdFloor:
		row.Verdict = Improved
	default:
		row.Verdict = Within
	}
	row.Noise = max(MedianUncertainty(b), MedianUncertainty(h))
	if row.Verdict != NotGated {
		row.MDEAbs = mdeAbs(b, h, opts.Alpha, opts.Power)
		row.MDE = relativeTo(row.MDEAbs, row.Base)
	}
	if (row.Verdict == Unchanged || row.Verdict == Within) && row.tooNoisy() {
		row.Verdict = Noisy
		row.RoundsNeeded = RoundsFor(sigmaOf(b), sigmaOf(h), row.targetAbs(), opts.Alpha, opts.Power)
		notes = append(notes, row.noiseNote())
	}
	row.Note = strings.Join(notes, "; ")
	return row
}

// shortRounds says which sides have fewer than rounds values ("" when
// neither does, or rounds is 0).
func shortRounds(nb, nh, rounds int) string {
	var parts []string
	for _, s := range []struct {
		side string
		n    int
	}{{"base", nb}, {"head", nh}} {
		if s.n < rounds {
			parts = append(parts, fmt.Sprintf("%s: %d of %d rounds", s.side, s.n, rounds))
		}
	}
	return strings.Join(parts, ", ")
}

// notGatedNote says why a unit is not gated: declared better=none, or no
// direction known.
func notGatedNote(unit string, units benchfmt.UnitMetadataMap) string {
	if m := units.Get(unit, "better"); m != nil && m.Value == "none" {
		return "better=none: reported only"
	}
	return "unknown direction: add a `Unit " + unit + " better=lower|higher` line"
}

// delta returns (h-b)/b, ±Inf when b is 0 and h is not, 0 when both are 0.
func delta(b, h float64) float64 {
	if b == 0 {
		switch {
		case h > 0:
			return math.Inf(1)
		case h < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return (h - b) / math.Abs(b)
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}

// median returns the median of xs without modifying it.
func median(xs []float64) float64 {
	return stat.Median(xs)
}

// mode returns the most frequent value of xs (the smallest on ties) and
// whether all values are equal.
func mode(xs []float64) (float64, bool) {
	s := slices.Clone(xs)
	slices.Sort(s)
	best, bestN, cur, curN := s[0], 1, s[0], 1
	for _, v := range s[1:] {
		if v == cur {
			curN++
		} else {
			cur, curN = v, 1
		}
		if curN > bestN {
			best, bestN = cur, curN
		}
	}
	return best, bestN == len(s)
}

// minUTestP is the smallest two-sided p-value the exact Mann-Whitney U test can
// give for samples of sizes n1 and n2: 2/C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	// log C(n1+n2, n1)
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n) + 1); return v }
	return math.Min(1, 2*math.Exp(-(lg(n1+n2)-lg(n1)-lg(n2))))
}
