// Package direction is the one type for "which way is better" that a unit of
// measure has: benchgate's units, gcstress's bench.txt units, the history
// database's better column and changepoint's series all use it.
//
// It is a leaf: it imports nothing of writegc, so benchgate/changepoint (a
// leaf itself, but for this package) and benchgate (which may import only
// benchgate/... and a few internal packages) can both depend on it.
package direction

// Direction says which way a unit improves. Its integer values are stored
// (the history database's series.better column): they do not change.
type Direction int8

// Directions.
const (
	Unknown Direction = 0  // no direction: reported, not gated
	Lower   Direction = -1 // less is better: durations, sizes, counts
	Higher  Direction = 1  // more is better: throughputs
)

// String is "lower", "higher" or "unknown": the words of a `better=`
// unit metadata.
func (d Direction) String() string {
	switch d {
	case Lower:
		return "lower"
	case Higher:
		return "higher"
	}
	return "unknown"
}

// Parse reads the word of a `better=` unit metadata ("lower" or "higher");
// anything else is Unknown.
func Parse(s string) Direction {
	switch s {
	case "lower":
		return Lower
	case "higher":
		return Higher
	}
	return Unknown
}

// Known reports whether d is Lower or Higher.
func (d Direction) Known() bool { return d == Lower || d == Higher }
