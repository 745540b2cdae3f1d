package benchgate

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/golden"
)

func TestReportJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := compareTestdata(t).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "compare.golden.json"), b.Bytes())
}

// The contract's names are there, with a value for each: the verdict, the
// change, the noise and the MDE of every row; null, not NaN, for what a row
// does not have; rounds_needed for a noisy row; confirmed for a row a
// confirming rerun judged, and for no other.
func TestReportJSONFields(t *testing.T) {
	base := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": rounds(100), "BenchmarkNoisy-2": noisyVals, "BenchmarkSlow-2": rounds(100)})
	head := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": rounds(100), "BenchmarkNoisy-2": noisyVals, "BenchmarkSlow-2": rounds(130)})
	rep, err := Compare(base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb := spreadSet("ns/op", map[string][]float64{"BenchmarkSlow-2": rounds(100)})
	rh := spreadSet("ns/op", map[string][]float64{"BenchmarkSlow-2": rounds(130)})
	if err := rep.Confirm(rb, rh); err != nil {
		t.Fatal(err)
	}
	rep.Rows = append(rep.Rows, newRow(Key{"BenchmarkNew-2", "ns/op"}, rounds(5), nil, rep.Options))
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status       string           `json:"status"`
		ConfirmRerun bool             `json:"confirm_rerun"`
		Rows         []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if got.Status != "fail" || !got.ConfirmRerun || len(got.Rows) != 4 {
		t.Fatalf("status %q, confirm_rerun %v, %d rows:\n%s", got.Status, got.ConfirmRerun, len(got.Rows), b.String())
	}
	for _, row := range got.Rows[:3] {
		for _, k := range []string{"verdict", "change_pct", "noise_pct", "mde_pct", "p", "threshold_pct"} {
			if _, ok := row[k].(float64); !ok && k != "verdict" {
				t.Errorf("%s: %s = %v, want a number", row["benchmark"], k, row[k])
			}
		}
	}
	q, n, s, nw := got.Rows[0], got.Rows[1], got.Rows[2], got.Rows[3]
	if q["verdict"] != "unchanged" || q["confirmed"] != nil || q["rounds_needed"] != nil {
		t.Errorf("quiet row %v", q)
	}
	if n["verdict"] != "noisy" || n["rounds_needed"] != float64(409) || n["mde_pct"].(float64) < 69 {
		t.Errorf("noisy row %v: want rounds_needed 409, mde_pct 69.8", n)
	}
	if s["verdict"] != "regressed" || s["confirmed"] != true || s["change_pct"].(float64) < 29 {
		t.Errorf("slow row %v: want regressed, confirmed, +30%%", s)
	}
	if nw["verdict"] != "new" || nw["base"] != nil || nw["change_pct"] != nil || nw["mde_pct"] != nil {
		t.Errorf("new row %v: want nulls for what it has not", nw)
	}
	if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
		t.Errorf("JSON holds a NaN or Inf:\n%s", b.String())
	}
}

// Every verdict has a JSON name.
func TestVerdictJSONName(t *testing.T) {
	seen := map[string]bool{}
	for v := Unchanged; v <= Worse; v++ {
		n := v.JSONName()
		if n == "" || seen[n] || strings.ContainsAny(n, " ~") {
			t.Errorf("verdict %v: JSON name %q", v, n)
		}
		seen[n] = true
	}
}
