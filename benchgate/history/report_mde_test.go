package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate/changepoint"
)

// TestReportLatestMDE: a series whose points carry an MDE names its latest
// in the JSON (latest_mde_pct, percent); one without has no such field.
func TestReportLatestMDE(t *testing.T) {
	pts := make([]Point, 4)
	pts[1].MDE, pts[1].HasMDE = 0.08, true
	pts[2].MDE, pts[2].HasMDE = 0.042, true
	as := []Analysis{
		{Series: Series{SeriesKey: SeriesKey{Benchmark: "BenchmarkGate", Unit: "ns/op", Mode: ModeGate}, Points: pts},
			Result: &changepoint.Result{}},
		{Series: Series{SeriesKey: SeriesKey{Benchmark: "BenchmarkPlain", Unit: "ns/op", Mode: ModeBench}, Points: make([]Point, 4)},
			Result: &changepoint.Result{}},
	}
	var js bytes.Buffer
	if err := WriteReport(&js, JSON, as); err != nil {
		t.Fatal(err)
	}
	var r JSONReport
	if err := json.Unmarshal(js.Bytes(), &r); err != nil || len(r.Series) != 2 {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if m := r.Series[0].LatestMDE; m == nil || *m != 4.2 {
		t.Errorf("latest_mde_pct %v, want 4.2\n%s", m, js.String())
	}
	if r.Series[1].LatestMDE != nil || strings.Count(js.String(), "latest_mde_pct") != 1 {
		t.Errorf("a series without an MDE names one:\n%s", js.String())
	}
}
