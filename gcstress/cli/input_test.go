package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
)

// mainBounded runs Main with args, failing the test instead of hanging when
// it blocks (a FIFO opened before its type was checked).
func mainBounded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var code int
	var stdout, stderr syncBuf
	testkit.Bounded(t, "gcstress "+strings.Join(args, " "), func() error {
		code = Main(context.Background(), args, &stdout, &stderr)
		return nil
	})
	return code, stderr.String()
}

// matrixSamples writes the matrix stream as dir/samples.jsonl.
func matrixSamples(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "results", "testdata", "streams", "matrix.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "samples.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestInputsRefuseNonRegularFiles: `gcstress report` with a FIFO, a socket,
// a directory or a link to /dev/zero or /dev/urandom as samples.jsonl or
// summary.json, `gcstress explain` with one as a profile, and `gcstress
// compare` with one as bench.txt, exit 2 naming
// the file, at once: the old code opened a FIFO before looking at it and
// hung there, Ctrl-C caught, until SIGKILL (and read /dev/zero until memory
// ran out).
func TestInputsRefuseNonRegularFiles(t *testing.T) {
	good := t.TempDir()
	if err := os.WriteFile(filepath.Join(good, compare.FileName), []byte("BenchmarkGCStress/set=matrix/kind=heap/value=100 \t1000\t1 objects/entry\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(what string, code int, errOut, path string) {
		t.Helper()
		if code != ExitUsage || !strings.Contains(errOut, path) || !strings.Contains(errOut, "not a regular file") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line naming %s, not a regular file", what, code, errOut, path)
		}
	}
	for _, pr := range testkit.Hostile(t, "samples.jsonl") {
		code, errOut := mainBounded(t, "report", pr.Dir)
		check("samples.jsonl a "+pr.Kind, code, errOut, pr.Path)
	}
	for _, pr := range testkit.Hostile(t, "summary.json") {
		matrixSamples(t, pr.Dir)
		code, errOut := mainBounded(t, "report", pr.Dir)
		check("summary.json a "+pr.Kind, code, errOut, pr.Path)
	}
	for _, pr := range testkit.Hostile(t, "cpu.pprof") {
		if pr.Kind != "directory" { // a folder is a folder of profiles
			code, errOut := mainBounded(t, "explain", pr.Path)
			check("explain of a "+pr.Kind, code, errOut, pr.Path)
		}
	}
	for _, pr := range testkit.Hostile(t, compare.FileName) {
		code, errOut := mainBounded(t, "compare", good, pr.Dir)
		check("bench.txt a "+pr.Kind, code, errOut, pr.Path)
	}
}

// TestReportRefusesHugeSummary: a summary.json over results.MaxSummaryBytes
// is refused, exit 2, in one line naming the file and the limit, before a
// byte of it is read (the old code read it whole and failed on its JSON,
// exit 1; a link to /dev/zero ran it out of memory).
func TestReportRefusesHugeSummary(t *testing.T) {
	dir := t.TempDir()
	matrixSamples(t, dir)
	p := filepath.Join(dir, "summary.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(results.MaxSummaryBytes + 1); err != nil { // sparse: no disk written
		t.Fatal(err)
	}
	f.Close()
	code, errOut := mainBounded(t, "report", dir)
	if code != ExitUsage || !strings.Contains(errOut, p) || !strings.Contains(errOut, strconv.FormatInt(results.MaxSummaryBytes, 10)) || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 2 and one line naming %s and the limit", code, errOut, p)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
		t.Error("report.md written despite the refused summary.json")
	}
}

// TestReportSkipsBadSamplesLines: a samples.jsonl line over MaxRecord and a
// line that is not JSON are skipped, and the rest rebuilt: exit 0, and the
// report's notes (report.md, the terminal report) name the file, the count
// and each line by number (the old code failed the whole rebuild, exit 1,
// on "token too long", naming neither file nor line).
func TestReportSkipsBadSamplesLines(t *testing.T) {
	dir := t.TempDir()
	b := matrixSamples(t, dir)
	lines := strings.SplitAfter(string(b), "\n")
	long := strings.Repeat("x", results.MaxRecord+1) + "\n"
	body := strings.Join(lines[:2], "") + long + "{not json\n" + strings.Join(lines[2:], "")
	p := filepath.Join(dir, "samples.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuf
	if code := Main(context.Background(), []string{"report", "-format", "table", dir}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"report.md": string(md), "terminal report": stdout.String()} {
		for _, want := range []string{"samples.jsonl: 2 line(s) skipped", "line 3 longer than the limit of " + strconv.Itoa(results.MaxRecord) + " bytes", "line 4 not a JSON sample"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	if !strings.Contains(stdout.String(), "Value Size") {
		t.Errorf("the rest was not rebuilt: %q", stdout.String())
	}
}

// TestOutFIFORefused: -out naming a FIFO (or a socket, or a device link) is
// a usage error, exit 2, at once. A probe: the old code passed it too (the
// folder check failed first), but isEmptyDir no longer opens anything that
// is not a folder, whatever the order of the checks.
func TestOutFIFORefused(t *testing.T) {
	for _, pr := range testkit.Hostile(t, "out") {
		if pr.Kind == "directory" {
			continue // an empty folder is a fine -out
		}
		code, errOut := mainBounded(t, "-out", pr.Path, "-kinds", "heap", "-values", "100", "-keys", "1000")
		if code != ExitUsage || !strings.Contains(errOut, pr.Path) {
			t.Errorf("-out a %s: exit %d, stderr %q; want 2 naming it", pr.Kind, code, errOut)
		}
	}
}
