package benchgate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// gcSides builds base and head with gc-cpu-% around the given values (ten
// samples each, a spread of 0.2 points).
func gcSides(t *testing.T, meta string, base, head float64) (*Set, *Set) {
	t.Helper()
	var b, h strings.Builder
	b.WriteString(meta)
	for i := range 10 {
		b.WriteString(lines("BenchmarkW-2", "gc-cpu-%", base+float64(i%3)/10))
		h.WriteString(lines("BenchmarkW-2", "gc-cpu-%", head+float64(i%3)/10))
	}
	return parseString(t, b.String()), parseString(t, h.String())
}

func TestUnitGateAbsolutePoints(t *testing.T) {
	const meta = "Unit gc-cpu-% better=lower gate=+2pt\n"
	for _, tc := range []struct {
		name       string
		base, head float64
		want       Verdict
	}{
		// 4% -> 5.5%: +37% relative (over the 10% default) but only +1.5 points.
		{"within 2 points", 4, 5.5, Within},
		{"3 points worse", 4, 7, Regressed},
		{"3 points better", 7, 4, Improved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, h := gcSides(t, meta, tc.base, tc.head)
			rep, err := Compare(b, h, Options{})
			if err != nil {
				t.Fatal(err)
			}
			row := rep.Rows[0]
			if row.Verdict != tc.want || !row.ThresholdAbs || row.Threshold != 2 || row.ThresholdFrom != "unit gate=+2pt" {
				t.Errorf("row %+v, want %v under the +2pt unit gate", row, tc.want)
			}
			var out bytes.Buffer
			rep.WriteText(&out)
			if !strings.Contains(out.String(), "+2pt (unit gate=+2pt)") {
				t.Errorf("report lacks the unit gate:\n%s", out.String())
			}
		})
	}
}

func TestUnitGateDefaultReportOnly(t *testing.T) {
	b, h := gcSides(t, "Unit gc-cpu-% better=none\n", 4, 7)
	rep, err := Compare(b, h, Options{})
	if err != nil || rep.Rows[0].Verdict != NotGated {
		t.Errorf("better=none: %+v, %v; want not gated", rep.Rows, err)
	}
	b, h = gcSides(t, "Unit gc-cpu-% better=lower gate=50%\n", 4, 5.5)
	if rep, _ := Compare(b, h, Options{}); rep.Rows[0].Verdict != Within || rep.Rows[0].Threshold != 0.5 {
		t.Errorf("gate=50%%: %+v, want within a 50%% relative gate", rep.Rows[0])
	}
}

func TestUnitGateSyntax(t *testing.T) {
	for in, want := range map[string]UnitGate{
		"+2pt":     {Amount: 2, Absolute: true, Spec: "+2pt"},
		"0.5pt":    {Amount: 0.5, Absolute: true, Spec: "0.5pt"},
		"25%":      {Amount: 0.25, Spec: "25%"},
		"5%,0.5pt": {Amount: 0.05, Floor: 0.5, Spec: "5%,0.5pt"},
	} {
		if got, err := ParseUnitGate(in); err != nil || got != want {
			t.Errorf("ParseUnitGate(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"2", "-2pt", "NaNpt", "+Infpt", "150%", "pt", "2 pt", "1pt,5%", "5%,5%", "5%,", ",1pt", "5%,1pt,2pt"} {
		if _, err := ParseUnitGate(bad); err == nil {
			t.Errorf("ParseUnitGate(%q): no error", bad)
		}
	}
	_, err := Parse(strings.NewReader("Unit gc-cpu-% better=lower gate=lots\n"+lines("BenchmarkW", "gc-cpu-%", 1)), "u.txt")
	var mal *MalformedError
	if !errors.As(err, &mal) || !strings.Contains(err.Error(), "u.txt:1") || !strings.Contains(err.Error(), "gate=lots") {
		t.Errorf("err = %v, want a malformed line u.txt:1 naming gate=lots", err)
	}
}

// Throughput units are higher-is-better without any metadata, as benchstat
// treats them: a drop regresses, a rise improves.
func TestThroughputDirection(t *testing.T) {
	for _, unit := range []string{"MB/s", "B/s", "ops/s"} {
		var b, h strings.Builder
		for i := range 10 {
			b.WriteString(lines("BenchmarkT-2", unit, 1000+float64(i%3)))
			h.WriteString(lines("BenchmarkT-2", unit, 700+float64(i%3)))
		}
		rep, err := Compare(parseString(t, b.String()), parseString(t, h.String()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if row := rep.Rows[0]; row.Direction != HigherIsBetter || row.Verdict != Regressed {
			t.Errorf("%s 1000 -> 700: %+v, want regressed (higher is better)", unit, row)
		}
		rep, _ = Compare(parseString(t, h.String()), parseString(t, b.String()), Options{})
		if rep.Rows[0].Verdict != Improved {
			t.Errorf("%s 700 -> 1000: %v, want improved", unit, rep.Rows[0].Verdict)
		}
	}
}

func TestBetterNoneNote(t *testing.T) {
	b, h := gcSides(t, "Unit gc-cpu-% better=none\n", 4, 7)
	rep, _ := Compare(b, h, Options{})
	if rep.Rows[0].Note != "better=none: reported only" {
		t.Errorf("note %q, want the better=none explanation", rep.Rows[0].Note)
	}
}
