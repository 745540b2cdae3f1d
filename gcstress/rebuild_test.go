package gcstress

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// writeSamples concatenates the recorded streams into dir/samples.jsonl.
func writeSamples(t *testing.T, dir string) {
	t.Helper()
	var all []byte
	for _, f := range []string{"matrix.jsonl", "failure.jsonl"} {
		b, err := os.ReadFile(filepath.Join("results", "testdata", "streams", f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.jsonl"), all, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRebuildReports regenerates the reports from samples.jsonl alone, then
// with a summary.json whose metadata and accounts must reach the reports;
// summary.json itself is left as it was.
func TestRebuildReports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a matrix and rebuilds it: make test-slow")
	}
	dir := t.TempDir()
	writeSamples(t, dir)
	sum, err := RebuildReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) == 0 {
		t.Fatal("no results replayed")
	}
	for _, f := range []string{"report.md", "report.html", "throughput.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	rec := *sum
	rec.Command = "gcstress -recorded-command"
	rec.Results = []Result{{Scenario: Scenario{Name: sum.Results[0].Scenario.Name}, Account: "ACCOUNT-TEXT", Exit: sum.Results[0].Exit}}
	b, _ := json.Marshal(&rec)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RebuildReports(dir); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"-recorded-command", "ACCOUNT-TEXT"} {
		if !strings.Contains(string(page), want) || !strings.Contains(string(md), want) {
			t.Errorf("reports lack %q from summary.json", want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "summary.json")); !bytes.Equal(after, b) {
		t.Error("summary.json was rewritten")
	}
}

func TestRebuildReportsNoSamples(t *testing.T) {
	if _, err := RebuildReports(t.TempDir()); !errors.Is(err, ErrUsage) {
		t.Fatalf("err %v, want ErrUsage", err)
	}
}

// recordedSummary is the Summary of the recorded streams (package
// results's testdata), replayed with the default thresholds: what the
// results folder's writers are given in these tests (package report's
// tests render the same streams into its goldens).
func recordedSummary(t *testing.T) *Summary {
	t.Helper()
	th := results.DefaultThresholds()
	sum := &Summary{Command: "gcstress (recorded)", Thresholds: th, Rules: th.String(), SpanNote: results.SpanNote, Out: "out"}
	for _, f := range []string{"matrix.jsonl", "failure.jsonl", "died.jsonl"} {
		in, err := os.Open(filepath.Join("results", "testdata", "streams", f))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := results.ReadResults(in, th)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		sum.Results = append(sum.Results, rs...)
	}
	return sum
}
