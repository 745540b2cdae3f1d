package benchgate

import (
	"fmt"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Direction says which way a unit improves.
type Direction int8

// Directions.
const (
	DirUnknown     Direction = 0  // no metadata and no default: reported, not gated
	LowerIsBetter  Direction = -1 // durations, sizes, counts, percentages
	HigherIsBetter Direction = 1  // throughputs
)

func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower"
	case HigherIsBetter:
		return "higher"
	}
	return "unknown"
}

// DirectionOf returns the direction of unit: the `better=` metadata when
// present (`better=none` declares a unit reported but never gated), else the
// built-in default: sec/op, ns/op, B/op, allocs/op and any
// unit ending in "-ns", "-%" or "/op" are lower-is-better; B/s, MB/s and ops/s
// are higher-is-better; anything else is DirUnknown.
func DirectionOf(unit string, meta benchfmt.UnitMetadataMap) Direction {
	if m := meta.Get(unit, "better"); m != nil {
		switch m.Value {
		case "lower":
			return LowerIsBetter
		case "higher":
			return HigherIsBetter
		}
		return DirUnknown
	}
	switch unit {
	case "sec/op", "ns/op", "B/op", "allocs/op":
		return LowerIsBetter
	case "B/s", "MB/s", "ops/s":
		return HigherIsBetter
	}
	for _, suf := range []string{"-ns", "-%", "/op"} {
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
// values on the two sides is ErrUnitConflict.
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
				ErrUnitConflict, v.OrigUnit, k.Key, have.Value, f1, l1, k.Key, v.Value, f2, l2)
		}
		out[k] = v
	}
	return out, nil
}
