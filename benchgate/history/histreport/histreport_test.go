package histreport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/benchgate/history"
)

func TestReportEscapes(t *testing.T) {
	hostile := []string{"<img src=x onerror=alert(1)>", "[click](https://evil.example)", "@octocat", "<!-- hide", "a|b`c", "esc\x1b[31mred", "www.evil.example"}
	var as []history.Analysis
	for _, h := range hostile {
		as = append(as, history.Analysis{Series: history.Series{SeriesKey: history.SeriesKey{Benchmark: h, Unit: "ns/op", Machine: "m @x", Mode: history.ModeBench}, Points: make([]history.Point, 4)},
			Result: &changepoint.Result{ChangePoints: []changepoint.ChangePoint{{Index: 2, Commit: "c<b>", PrevCommit: "c1",
				Before: 1, After: 2, RelChange: 1, Direction: changepoint.Regression}}}})
	}
	var md bytes.Buffer
	if err := Write(&md, Markdown, as); err != nil {
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
	if err := Write(&table, Table, as); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "\x1b") || !strings.Contains(table.String(), `esc\x1b[31mred`) {
		t.Errorf("table: ESC not escaped:\n%s", table.String())
	}
	if got := history.Printable("a\xffb\u202ec"); got != `a\xffb\u202ec` {
		t.Errorf("Printable = %q", got)
	}
	if _, err := io.WriteString(io.Discard, mdCell("")); err != nil {
		t.Fatal(err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range []Format{Table, Markdown, JSON} {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	_, err := ParseFormat("html")
	if !errors.Is(err, ErrFormat) || err.Error() != `format "html": want table, md or json` {
		t.Errorf("ParseFormat(html): %v", err)
	}
	if err := Write(io.Discard, "html", nil); !errors.Is(err, ErrFormat) {
		t.Errorf("Write(html): %v", err)
	}
}
