package stat

import "testing"

func TestStringParseRoundTrip(t *testing.T) {
	for _, d := range []Direction{UnknownDirection, Lower, Higher} {
		if got := ParseDirection(d.String()); got != d {
			t.Errorf("ParseDirection(%q) = %v, want %v", d.String(), got, d)
		}
	}
	if ParseDirection("none") != UnknownDirection || Direction(7).String() != "unknown" || Direction(7).Known() {
		t.Error("an unknown word or value is not UnknownDirection")
	}
	// The stored integers (history's series.better column) do not change.
	if Lower != -1 || Higher != 1 || UnknownDirection != 0 {
		t.Error("the stored values of the directions changed")
	}
}
