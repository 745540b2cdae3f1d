package benchgate

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// better=none declares a unit reported but never gated; any other unknown
// value is malformed.
func TestBetterNone(t *testing.T) {
	r := benchfmt.NewReader(strings.NewReader("Unit gc-cpu-% better=none\nUnit x-ns better=sideways\n"), "u.txt")
	var bad []string
	for r.Scan() {
		if u, ok := r.Result().(*benchfmt.UnitMetadata); ok {
			if msg := checkMetadata(u); msg != "" {
				bad = append(bad, u.OrigUnit)
			}
		}
	}
	if len(bad) != 1 || bad[0] != "x-ns" {
		t.Fatalf("malformed units = %v, want only x-ns", bad)
	}
	meta := benchfmt.UnitMetadataMap{}
	meta[benchfmt.UnitMetadataKey{Unit: "gc-cpu-%", Key: "better"}] = &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "gc-cpu-%", Key: "better"}, OrigUnit: "gc-cpu-%", Value: "none"}
	if d := DirectionOf("gc-cpu-%", meta); d != DirUnknown {
		t.Fatalf("better=none gives direction %v, want unknown (not gated)", d)
	}
	if d := DirectionOf("gc-cpu-%", nil); d != LowerIsBetter {
		t.Fatalf("default direction of gc-cpu-%% = %v", d)
	}
}
