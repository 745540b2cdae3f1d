package benchgate

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// aaSets builds an A/A pair: chunk i of base is all 100, chunk i of head is
// all 100*(1+d[i]), so each chunk's relative median difference is d[i].
func aaSets(t *testing.T, rounds int, ds []float64) (*Set, *Set) {
	t.Helper()
	var b, h strings.Builder
	b.WriteString("cpu: X\ncommit: abc123\n")
	h.WriteString("cpu: X\ncommit: abc123\n")
	for _, d := range ds {
		for range rounds {
			b.WriteString(lines("BenchmarkA-2", "ns/op", 100))
			h.WriteString(lines("BenchmarkA-2", "ns/op", 100*(1+d)))
			b.WriteString(lines("BenchmarkA-2", "allocs/op", 3))
			h.WriteString(lines("BenchmarkA-2", "allocs/op", 3))
		}
	}
	return parseString(t, b.String()), parseString(t, h.String())
}

func TestCalibrateSpread(t *testing.T) {
	// 20 chunks: |d| = 0.01 .. 0.20; the nearest-rank 95th percentile is the 19th: 0.19.
	var ds []float64
	for i := 1; i <= 20; i++ {
		d := float64(i) / 100
		if i%2 == 0 {
			d = -d
		}
		ds = append(ds, d)
	}
	base, head := aaSets(t, 3, ds)
	th, err := Calibrate(base, head, CalibrateConfig{Rounds: 3, Date: "2026-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Rows) != 1 || th.Rows[0].Key != (Key{"BenchmarkA-2", "ns/op"}) {
		t.Fatalf("rows %+v, want only the timed ns/op row (allocs/op is exact)", th.Rows)
	}
	if r := th.Rows[0]; math.Abs(r.Spread-0.19) > 1e-9 || math.Abs(r.Threshold-0.38) > 1e-9 {
		t.Errorf("spread %v threshold %v, want 0.19 and k 2 x 0.19 = 0.38", r.Spread, r.Threshold)
	}
	if th.Chunks != 20 || th.Commit != "abc123" || th.Machine["cpu"] != "X" || th.Machine["gomaxprocs"] != "2" {
		t.Errorf("header %+v", th)
	}

	// A quiet benchmark gets the default threshold.
	base, head = aaSets(t, 3, make([]float64, 12))
	th, err = Calibrate(base, head, CalibrateConfig{Rounds: 3})
	if err != nil || th.Rows[0].Threshold != DefaultThreshold {
		t.Errorf("quiet: %+v, %v; want the default threshold", th, err)
	}
	// Too few chunks.
	if _, err := Calibrate(base, head, CalibrateConfig{Rounds: 4}); !errors.Is(err, ErrUnderpowered) {
		t.Errorf("9 chunks: err = %v, want ErrUnderpowered", err)
	}
	if _, err := Calibrate(base, head, CalibrateConfig{Rounds: 0}); !errors.Is(err, errBadOption) {
		t.Errorf("Rounds 0: err = %v, want errBadOption", err)
	}
}

func TestThresholdsRoundTripAndCompare(t *testing.T) {
	var ds []float64
	for i := range 20 {
		ds = append(ds, float64(i)/100)
	}
	base, head := aaSets(t, 3, ds)
	th, err := Calibrate(base, head, CalibrateConfig{Rounds: 3, Date: "2026-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := th.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ParseThresholds(&buf, "gate-thresholds.txt")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got, _ := back.Get(Key{"BenchmarkA-2", "ns/op"}); got != 0.36 || back.K != 2 || back.Date != "2026-01-01T00:00:00Z" {
		t.Errorf("read back %+v", back)
	}

	// A 20% slowdown regresses at the default 10% but not at the calibrated 36%.
	b := parseString(t, sideText("cpu: X\n", 100))
	h := parseString(t, sideText("cpu: X\n", 120))
	rep, err := Compare(b, h, Options{Thresholds: back})
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	if row.Verdict != Within || row.Threshold != 0.36 || row.ThresholdFrom != "calibrated gate-thresholds.txt" {
		t.Errorf("row %+v, want within the calibrated 36%%", row)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "36% (calibrated gate-thresholds.txt)") {
		t.Errorf("report lacks the row's threshold and source:\n%s", text.String())
	}

	// The thresholds file's machine must match the head's.
	h2 := parseString(t, sideText("cpu: Y\n", 120))
	b2 := parseString(t, sideText("cpu: Y\n", 100))
	if _, err := Compare(b2, h2, Options{Thresholds: back}); !errors.Is(err, ErrCrossMachine) ||
		!strings.Contains(err.Error(), `cpu: gate-thresholds.txt "X" vs head "Y"`) {
		t.Errorf("err = %v, want ErrCrossMachine naming the thresholds file", err)
	}
}

func TestParseThresholdsErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no version", "commit: x\nBenchmarkA ns/op 10% 1%\n", "t.txt:1: first line"},
		{"empty", "# nothing\n", "empty"},
		{"no rows", ThresholdsVersion + "\nk: 2\n", "no threshold rows"},
		{"bad threshold", ThresholdsVersion + "\nBenchmarkA ns/op 250% 1%\n", "t.txt:2: threshold"},
		{"zero threshold", ThresholdsVersion + "\nBenchmarkA ns/op 0% 1%\n", "t.txt:2: threshold"},
		{"NaN spread", ThresholdsVersion + "\nBenchmarkA ns/op 10% NaN\n", "t.txt:2: spread"},
		{"fields", ThresholdsVersion + "\nBenchmarkA ns/op 10%\n", "t.txt:2:"},
		{"twice", ThresholdsVersion + "\nBenchmarkA ns/op 10% 1%\nBenchmarkA ns/op 12% 1%\n", "t.txt:3: BenchmarkA ns/op listed twice"},
		{"bad k", ThresholdsVersion + "\nk: two\nBenchmarkA ns/op 10% 1%\n", "t.txt:2: k"},
		{"junk", ThresholdsVersion + "\njunk\nBenchmarkA ns/op 10% 1%\n", "t.txt:2:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseThresholds(strings.NewReader(tc.in), "t.txt")
			if !errors.Is(err, errThresholdsFile) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want errThresholdsFile containing %q", err, tc.want)
			}
		})
	}
}
