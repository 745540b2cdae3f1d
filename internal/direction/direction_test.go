package direction

import "testing"

func TestStringParseRoundTrip(t *testing.T) {
	for _, d := range []Direction{Unknown, Lower, Higher} {
		if got := Parse(d.String()); got != d {
			t.Errorf("Parse(%q) = %v, want %v", d.String(), got, d)
		}
	}
	if Parse("none") != Unknown || Direction(7).String() != "unknown" || Direction(7).Known() {
		t.Error("an unknown word or value is not Unknown")
	}
	// The stored integers (history's series.better column) do not change.
	if Lower != -1 || Higher != 1 || Unknown != 0 {
		t.Error("the stored values of the directions changed")
	}
}
