package benchgate

import "testing"

// TestThresholdsSummary: the summary names the thresholds that judged the
// rows: the default alone as before; instruction mode's unit gates by unit
// (the 1% and 2% gates, not a 10% no row used); calibrated ones by source,
// a long list cut short.
func TestThresholdsSummary(t *testing.T) {
	unit := func(u string, th, floor float64, spec string) Row {
		return Row{Key: Key{Name: "BenchmarkX", Unit: u}, Threshold: th, ThresholdFloor: floor, ThresholdFrom: "unit gate=" + spec}
	}
	for _, tc := range []struct {
		name string
		rows []Row
		want string
	}{
		{"none", nil, "threshold 10%"},
		{"default", []Row{{Key: Key{Unit: "sec/op"}, Threshold: 0.1, ThresholdFrom: "default"},
			{Key: Key{Unit: "allocs/op"}, Exact: true}}, "threshold 10%"},
		{"instructions", []Row{unit(UnitInstructions, 0.01, 0, "1%"), unit(UnitD1Misses, 0.05, 0.5, "5%,0.5pt"),
			unit(UnitLLMisses, 0.05, 0.5, "5%,0.5pt"), unit(UnitEstCycles, 0.02, 0, "2%")},
			"thresholds 1% instructions/op, 5% and +0.5pt D1-misses/op and LL-misses/op, 2% est-cycles/op (unit gates)"},
		{"points and default", []Row{{Key: Key{Unit: "sec/op"}, Threshold: 0.1, ThresholdFrom: "default"},
			{Key: Key{Unit: "gc-cpu-%"}, Threshold: 2, ThresholdAbs: true, ThresholdFrom: "unit gate=+2pt"}},
			"thresholds 10% (default); +2pt gc-cpu-% (unit gates)"},
		{"calibrated", []Row{
			{Key: Key{Name: "A", Unit: "sec/op"}, Threshold: 0.12, ThresholdFrom: "calibrated th.txt"},
			{Key: Key{Name: "B", Unit: "sec/op"}, Threshold: 0.3, ThresholdFrom: "calibrated th.txt"},
			{Key: Key{Name: "C", Unit: "sec/op"}, Threshold: 0.25, ThresholdFrom: "calibrated th.txt"},
			{Key: Key{Name: "D", Unit: "sec/op"}, Threshold: 0.5, ThresholdFrom: "calibrated th.txt"},
			{Key: Key{Name: "E", Unit: "sec/op"}, Threshold: 0.12, ThresholdFrom: "calibrated th.txt"}},
			"thresholds 12%, 30%, 25%, 1 more (calibrated th.txt)"},
	} {
		r := &Report{Rows: tc.rows, Options: Options{Threshold: 0.1}}
		if got := r.thresholdsSummary(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestThresholdsSummaryPlain: a calibrated file is named by its base name
// and a unit or file name that is not plain text reads "?": the summary
// heads the Markdown report.
func TestThresholdsSummaryPlain(t *testing.T) {
	r := &Report{Options: Options{Threshold: 0.1}, Rows: []Row{
		{Key: Key{Unit: "sec/op"}, Threshold: 0.2, ThresholdFrom: "calibrated /home/me/ci/th.txt"},
		{Key: Key{Unit: "<img src=x>/op"}, Threshold: 0.05, ThresholdFrom: "unit gate=5%"},
		{Key: Key{Unit: "x/op"}, Threshold: 0.05, ThresholdFrom: "calibrated /tmp/[x](y).txt"},
	}}
	if got, want := r.thresholdsSummary(), "thresholds 20% (calibrated th.txt); 5% ? (unit gates); 5% (calibrated ?)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
