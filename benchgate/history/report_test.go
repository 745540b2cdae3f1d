package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate/changepoint"
)

func TestReportEscapes(t *testing.T) {
	hostile := []string{"<img src=x onerror=alert(1)>", "[click](https://evil.example)", "@octocat", "<!-- hide", "a|b`c", "esc\x1b[31mred", "www.evil.example"}
	var as []Analysis
	for _, h := range hostile {
		as = append(as, Analysis{Series: Series{SeriesKey: SeriesKey{Benchmark: h, Unit: "ns/op", Machine: "m @x", Mode: ModeBench}, Points: make([]Point, 4)},
			Result: &changepoint.Result{ChangePoints: []changepoint.ChangePoint{{Index: 2, Commit: "c<b>", PrevCommit: "c1",
				Before: 1, After: 2, RelChange: 1, Direction: changepoint.Regression}}}})
	}
	var md bytes.Buffer
	if err := WriteReport(&md, Markdown, as); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| benchmark") || strings.Contains(line, "``") {
			continue
		}
		// Outside code spans no markup character may remain.
		var outside strings.Builder
		for i, part := range strings.Split(line, "`") {
			if i%2 == 0 {
				outside.WriteString(part)
			}
		}
		if o := outside.String(); strings.ContainsAny(o, "<>[]@\x1b") || strings.Contains(o, "www.") {
			t.Errorf("markup outside code spans: %q (line %q)", o, line)
		}
	}
	if !strings.Contains(md.String(), "| `` a\\|b`c `` |") {
		t.Errorf("a|b`c not fenced with its pipe escaped:\n%s", md.String())
	}
	var table bytes.Buffer
	if err := WriteReport(&table, Table, as); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "\x1b") || !strings.Contains(table.String(), `esc\x1b[31mred`) {
		t.Errorf("table: ESC not escaped:\n%s", table.String())
	}
	if got := Printable("a\xffb\u202ec"); got != `a\xffb\u202ec` {
		t.Errorf("Printable = %q", got)
	}
	if _, err := io.WriteString(io.Discard, mdCell("")); err != nil {
		t.Fatal(err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []ReportFormat{Table, Markdown, JSON} {
		if got, err := ParseReportFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseReportFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseReportFormat("html")
	if !errors.Is(err, ErrReportFormat) || err.Error() != `format "html": want table, md or json` {
		t.Errorf("ParseReportFormat(html): %v", err)
	}
	if err := WriteReport(io.Discard, "html", nil); !errors.Is(err, ErrReportFormat) {
		t.Errorf("WriteReport(html): %v", err)
	}
}

// TestReportUnstable: an unstable series is marked in every format (the
// JSON's and the Markdown's `unstable`, the table's line), a stable one is
// not.
func TestReportUnstable(t *testing.T) {
	cps := &changepoint.Result{ChangePoints: []changepoint.ChangePoint{{Index: 5, Commit: "c5", PrevCommit: "c4",
		Before: 100, After: 110, RelChange: 0.1, Direction: changepoint.Regression}}}
	as := []Analysis{
		{Series: Series{SeriesKey: SeriesKey{Benchmark: "BenchmarkShaky", Unit: "ns/op", Mode: ModeGate}, Points: make([]Point, 10)},
			Result: cps, Stability: Stability{Points: 10, Noise: 0.123, Flips: 4, Unstable: true}},
		{Series: Series{SeriesKey: SeriesKey{Benchmark: "BenchmarkSteady", Unit: "ns/op", Mode: ModeGate}, Points: make([]Point, 10)},
			Result: &changepoint.Result{}, Stability: Stability{Points: 10, Noise: 0.01}},
	}
	var js, md, table bytes.Buffer
	for f, w := range map[ReportFormat]*bytes.Buffer{JSON: &js, Markdown: &md, Table: &table} {
		if err := WriteReport(w, f, as); err != nil {
			t.Fatal(err)
		}
	}
	var r JSONReport
	if err := json.Unmarshal(js.Bytes(), &r); err != nil || len(r.Series) != 2 {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	if s := r.Series[0]; !s.Unstable || s.Noise != 0.123 || s.Flips != 4 || r.Series[1].Unstable {
		t.Errorf("JSON series %+v", r.Series)
	}
	for _, want := range []string{"0 stale, 1 unstable.", "| regression | true |",
		"**Unstable series**", "| BenchmarkShaky | ns/op |  | true | 12.3% | 4 | 10 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "| BenchmarkSteady | ns/op |  | true") {
		t.Errorf("Markdown marks the steady series:\n%s", md.String())
	}
	for _, want := range []string{"(mode gate, 10 points, unstable)", "unstable: BenchmarkShaky ns/op [] (mode gate): noise 12.3%, 4 verdict flips", "1 unstable\n"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}
