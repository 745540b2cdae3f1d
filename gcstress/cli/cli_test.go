package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

func TestUsageExitsTwoNamingTheFlag(t *testing.T) {
	ro := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(ro, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-values", "0"}, {"-kinds", "nosuch"}, {"-format", "xml"},
		{"-out", filepath.Join(ro, "out")}, // below a regular file: cannot be created, even by root
	} {
		var stderr syncBuf
		if code := Main(context.Background(), append([]string{"-out", t.TempDir()}, args...), io.Discard, &stderr); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%v: message %q does not name the flag", args, stderr.String())
		}
	}
}

func TestExplainUsageExitsTwo(t *testing.T) {
	if code := Main(context.Background(), []string{"explain"}, io.Discard, io.Discard); code != ExitUsage {
		t.Fatalf("explain without files: exit %d, want 2", code)
	}
}

// TestNonEmptyOutExitsTwo: a results folder that already holds a run is
// refused with exit 2, naming the folder and -replace-out.
func TestNonEmptyOutExitsTwo(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "samples.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr syncBuf
	// Tiny settings: were the folder accepted, the run would be short.
	args := []string{"-out", out, "-quick", "-kinds", "arena", "-values", "100", "-keys", "1K", "-scenario", "matrix", "-memstore", "1MB", "-regions", "1"}
	code := Main(context.Background(), args, io.Discard, &stderr)
	if code != ExitUsage || !strings.Contains(stderr.String(), out) || !strings.Contains(stderr.String(), "-replace-out") {
		t.Fatalf("exit %d, message %q", code, stderr.String())
	}
}

// TestCancelledContextExits130: a context cancelled before the first
// scenario is an interrupt: exit 130, with the (empty) reports written.
func TestCancelledContextExits130(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr syncBuf
	args := []string{"-out", out, "-quick", "-kinds", "arena", "-values", "100", "-scenario", "matrix"}
	if code := Main(ctx, args, io.Discard, &stderr); code != ExitInterrupted {
		t.Fatalf("exit %d, want 130: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Fatal(err)
	}
	if line := lastLine(stderr.String()); !strings.HasSuffix(line, "; open "+filepath.Join(out, "report.html")) {
		t.Fatalf("last line %q does not name report.html", line)
	}
}

// TestMainEndToEnd runs the whole command on a tiny matrix and failure
// scenario: every child is this test binary, served by Main (TestMain).
func TestMainEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command end to end: make test-slow")
	}
	out := t.TempDir()
	var stdout, stderr syncBuf
	args := []string{"-quick", "-kinds", "heap,offheap", "-values", "100", "-keys", "20K", "-memstore", "1MB", "-regions", "1",
		"-scenario", "matrix,failure", "-fail-keys", "300K", "-fail-duration", "1s", "-fail-memlimit", "32MB", "-out", out, "-format", "json"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	var sum gcstress.Summary
	if err := json.Unmarshal([]byte(stdout.String()), &sum); err != nil {
		t.Fatalf("json report: %v", err)
	}
	if len(sum.Results) != 4 || !strings.HasPrefix(sum.Command, "gcstress -quick") {
		t.Fatalf("%d results, command %q", len(sum.Results), sum.Command)
	}
	for _, f := range []string{"summary.json", "samples.jsonl", "report.md", "timeline-100B.svg", "timeline-100B.png",
		"timeline-failure.png", "throughput.png", "throughput.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("missing or empty %s: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"| Value Size | Key Count |", "offheap MB/s", "## Failure, collapse and stall scenarios", "## Health rules", "![throughput](throughput.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if !strings.Contains(stderr.String(), "[1/4]") || !strings.Contains(stderr.String(), "results: "+out) {
		t.Errorf("no progress lines: %s", stderr.String())
	}
	if line := lastLine(stderr.String()); line != "open: "+filepath.Join(out, "report.html") {
		t.Errorf("-format json: last line of stderr %q, want open: %s", line, filepath.Join(out, "report.html"))
	}
}

// TestHTTPFlagBadAddressExitsTwo: a bad -http address is a usage error
// naming the flag, before any work.
func TestHTTPFlagBadAddressExitsTwo(t *testing.T) {
	for _, addr := range []string{"8080", "example.com:80", ":99999"} {
		var stderr syncBuf
		if code := Main(context.Background(), []string{"-out", t.TempDir(), "-http", addr}, io.Discard, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "-http") {
			t.Errorf("-http %s: exit %d, %q", addr, code, stderr.String())
		}
	}
}

// TestHTTPFlagServesDuringRun: a run with -http prints the live page's URL
// (loopback for a port alone) and still writes report.html.
func TestHTTPFlagServesDuringRun(t *testing.T) {
	out := t.TempDir()
	var stderr syncBuf
	args := []string{"-http", ":0", "-out", out, "-quick", "-kinds", "arena", "-values", "100", "-keys", "10K", "-scenario", "matrix", "-memstore", "1MB", "-regions", "1"}
	if code := Main(context.Background(), args, io.Discard, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "live page: http://127.0.0.1:") {
		t.Errorf("no live page URL on stderr: %s", stderr.String())
	}
	if st, err := os.Stat(filepath.Join(out, "report.html")); err != nil || st.Size() == 0 {
		t.Errorf("report.html: %v", err)
	}
}

// TestReportSubcommand: `gcstress report DIR` regenerates the reports from
// samples.jsonl; a missing folder or a missing argument is usage (2).
func TestReportSubcommand(t *testing.T) {
	if code := Main(context.Background(), []string{"report", filepath.Join(t.TempDir(), "nosuch")}, io.Discard, io.Discard); code != ExitUsage {
		t.Errorf("missing DIR: exit %d, want 2", code)
	}
	if code := Main(context.Background(), []string{"report"}, io.Discard, io.Discard); code != ExitUsage {
		t.Errorf("no DIR: exit %d, want 2", code)
	}
	if code := Main(context.Background(), []string{"report", t.TempDir()}, io.Discard, io.Discard); code != ExitUsage {
		t.Errorf("DIR without samples.jsonl: exit %d, want 2", code)
	}
	dir := t.TempDir()
	matrixSamples(t, dir)
	var stdout, stderr syncBuf
	if code := Main(context.Background(), []string{"report", "-format", "table", dir}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, f := range []string{"report.md", "report.html", "throughput.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	if !strings.Contains(stdout.String(), "Value Size") {
		t.Errorf("-format table printed %q", stdout.String())
	}
}

// TestWriteFailureExitsOne: a terminal report that cannot be written
// (stdout on a full disk, here a read-only file) is a tool failure, exit 1,
// naming the file; so is any results-file error.
func TestWriteFailureExitsOne(t *testing.T) {
	dir := t.TempDir()
	matrixSamples(t, dir)
	ro, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var stderr syncBuf
	if code := Main(context.Background(), []string{"report", "-format", "table", dir}, ro, &stderr); code != ExitFailure || !strings.Contains(stderr.String(), os.DevNull) {
		t.Fatalf("exit %d, message %q: want 1 naming %s", code, stderr.String(), os.DevNull)
	}
	if code := ExitCode(fmt.Errorf("wrapped: %w", gcstress.ErrWrite)); code != ExitFailure {
		t.Fatalf("ErrWrite: exit %d, want 1", code)
	}
}

// TestPlanPrintedAndBounded: the plan and its estimate go to stderr before
// the first scenario starts, and a run planned past -max-run is one usage
// line naming the flag that drives it, unless -max-run is raised.
func TestPlanPrintedAndBounded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing runs: the plan is printed all the same
	var stderr syncBuf
	args := []string{"-out", t.TempDir(), "-quick", "-kinds", "arena", "-values", "100", "-scenario", "matrix,stall"}
	if code := Main(ctx, args, io.Discard, &stderr); code != ExitInterrupted {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	// The old -scenario list still runs, after its deprecation note.
	if dep, plan, _ := strings.Cut(stderr.String(), "\n"); !strings.Contains(dep, "deprecated") || !strings.HasPrefix(plan, "plan: matrix: ") {
		t.Errorf("-scenario matrix,stall: stderr %q", stderr.String())
	}
	stderr = syncBuf{}
	args = []string{"matrix", "-out", t.TempDir(), "-quick", "-kinds", "arena", "-values", "100"}
	if code := Main(ctx, args, io.Discard, &stderr); code != ExitInterrupted {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stderr.String()
	if !strings.HasPrefix(out, "plan: matrix: 1 run(s) × ≈ ") || !strings.Contains(out, "plan: the whole run ≈ ") {
		t.Errorf("stderr does not start with the plan:\n%s", out)
	}
	absurd := []string{"-scenario", "frontier", "-kinds", "heap,arena,offheap", "-values", "100", "-container", "512MiB",
		"-point-duration", "1h", "-confirm-duration", "2h", "-gogc", "25,50,75,100,125,150,175,200,250,300,400,off", "-memlimit-frac", "none,0.5,0.6,0.7,0.8,0.9"}
	var e syncBuf
	if code := Main(context.Background(), absurd, io.Discard, &e); code != ExitUsage || strings.Count(e.String(), "\n") != 1 ||
		!strings.Contains(e.String(), "-point-duration: the run is planned at ≈ ") || !strings.Contains(e.String(), "days") {
		t.Errorf("absurd frontier: exit %d, stderr %q", code, e.String())
	}
	if _, err := ParseFlags(append(absurd, "-max-run", "10000h"), io.Discard); err != nil {
		t.Errorf("-max-run 10000h: %v", err)
	}
}
