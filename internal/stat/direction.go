package stat

// Direction says which way a unit improves. Its integer values are stored
// (the history database's series.better column): they do not change.
type Direction int8

// Directions.
const (
	UnknownDirection Direction = 0  // no direction: reported, not gated
	Lower            Direction = -1 // less is better: durations, sizes, counts
	Higher           Direction = 1  // more is better: throughputs
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

// ParseDirection reads the word of a `better=` unit metadata ("lower" or "higher");
// anything else is UnknownDirection.
func ParseDirection(s string) Direction {
	switch s {
	case "lower":
		return Lower
	case "higher":
		return Higher
	}
	return UnknownDirection
}

// Known reports whether d is Lower or Higher.
func (d Direction) Known() bool { return d == Lower || d == Higher }
