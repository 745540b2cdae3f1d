package benchgate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/writegc/writegc/internal/stat"
)

// Direction says which way a unit improves: internal/stat's
// Direction, which changepoint, gcstress's bench.txt units and the
// history database share.
type Direction = stat.Direction

// Directions.
const (
	DirUnknown     = stat.UnknownDirection // no metadata and no default: reported, not gated
	LowerIsBetter  = stat.Lower            // durations, sizes, counts, percentages
	HigherIsBetter = stat.Higher           // throughputs
)

// DirectionOf returns the direction of unit: the `better=` metadata when
// present (`better=none` declares a unit reported but never gated), else the
// built-in default: sec/op, ns/op, B/op, allocs/op and any
// unit ending in "-ns", "-nsec", "-%" or "/op" are lower-is-better; B/s, MB/s and ops/s
// are higher-is-better; anything else is DirUnknown.
func DirectionOf(unit string, meta benchfmt.UnitMetadataMap) Direction {
	if m := meta.Get(unit, "better"); m != nil {
		return stat.ParseDirection(m.Value)
	}
	switch unit {
	case "sec/op", "ns/op", "B/op", "allocs/op":
		return LowerIsBetter
	case "B/s", "MB/s", "ops/s":
		return HigherIsBetter
	}
	for _, suf := range []string{"-ns", "-nsec", "-%", "/op"} {
		if strings.HasSuffix(unit, suf) {
			return LowerIsBetter
		}
	}
	return DirUnknown
}

// IsExact reports whether unit is deterministic: allocs/op, B/op, or declared
// `assume=exact`. An explicit `assume=nothing` overrides the default for
// allocs/op and B/op.
func IsExact(unit string, meta benchfmt.UnitMetadataMap) bool {
	if m := meta.Get(unit, "assume"); m != nil {
		return m.Value == "exact"
	}
	return unit == "allocs/op" || unit == "B/op"
}

// mergeUnits merges the unit metadata of two sides; a key set to different
// values on the two sides is errUnitConflict.
func mergeUnits(a, b benchfmt.UnitMetadataMap) (benchfmt.UnitMetadataMap, error) {
	out := benchfmt.UnitMetadataMap{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if have, ok := out[k]; ok && have.Value != v.Value {
			f1, l1 := have.Pos()
			f2, l2 := v.Pos()
			return nil, fmt.Errorf("%w: unit %s: %s=%s at %s:%d but %s=%s at %s:%d",
				errUnitConflict, v.OrigUnit, k.Key, have.Value, f1, l1, k.Key, v.Value, f2, l2)
		}
		out[k] = v
	}
	return out, nil
}

// UnitGate is a unit's own gate, declared by `gate=` unit metadata:
//
//	Unit gc-cpu-% better=lower gate=+2pt      regress when the median is worse by more than 2 (points)
//	Unit p99-ns better=lower gate=25%         regress when it is worse by more than 25%
//	Unit LL-misses/op better=lower gate=5%,0.5pt   worse by more than 5% and by more than 0.5
//
// An absolute gate (`+Npt`: N in the unit's own terms, percentage points for
// a -% unit, the "+" optional) suits units that are already percentages,
// where a relative change of a small share (1% to 2% of CPU is +100%) says
// little. A relative gate (`N%`, at most 100%) replaces the gate's
// threshold for that unit. Both (`N%,Mpt`) need the change to exceed both:
// a relative gate with an absolute floor, for counts that are sometimes
// near zero (cache misses per op), where a large relative change of a tiny
// count is noise. Either way the U test must also give p < Alpha,
// and the unit needs a direction (better=lower|higher): with better=none, or
// with no gate= at all for a unit set better=none, it stays report-only.
type UnitGate struct {
	Amount   float64 // fraction (relative) or absolute amount
	Absolute bool
	Floor    float64 // with a relative Amount: the absolute amount also needed (0: none)
	Spec     string  // as written, "+2pt"
}

// UnitGateOf returns the `gate=` metadata of unit, if any and valid.
func UnitGateOf(unit string, meta benchfmt.UnitMetadataMap) (UnitGate, bool) {
	m := meta.Get(unit, "gate")
	if m == nil {
		return UnitGate{}, false
	}
	g, err := ParseUnitGate(m.Value)
	return g, err == nil
}

// ParseUnitGate parses a `gate=` value: "+2pt", "2pt", "0.5pt", "25%",
// "5%,0.5pt".
func ParseUnitGate(v string) (UnitGate, error) {
	if rel, abs, ok := strings.Cut(v, ","); ok {
		r, err1 := parseGatePart(rel)
		a, err2 := parseGatePart(abs)
		if err1 != nil || err2 != nil || r.Absolute || !a.Absolute {
			return UnitGate{Spec: v}, fmt.Errorf("gate=%s: want N%%,Mpt (relative, then an absolute floor)", v)
		}
		return UnitGate{Amount: r.Amount, Floor: a.Amount, Spec: v}, nil
	}
	return parseGatePart(v)
}

func parseGatePart(v string) (UnitGate, error) {
	g := UnitGate{Spec: v}
	num, abs := strings.CutSuffix(strings.TrimPrefix(v, "+"), "pt")
	if !abs {
		var pct bool
		if num, pct = strings.CutSuffix(num, "%"); !pct {
			return g, fmt.Errorf("gate=%s: want +Npt (absolute, in the unit's own terms), N%% (relative) or N%%,Mpt (both)", v)
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || (!abs && f > MaxThreshold*100) {
		return g, fmt.Errorf("gate=%s: want +Npt with N a finite number >= 0, or N%% with N in [0, %g]", v, MaxThreshold*100)
	}
	g.Absolute, g.Amount = abs, f
	if !abs {
		g.Amount = f / 100
	}
	return g, nil
}
