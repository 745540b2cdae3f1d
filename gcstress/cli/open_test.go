package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/results"
)

// testFastKind is a user engine that keeps nothing: the fastest engine a
// user can register, so its key counts never stretch a run. It is
// registered in the parent and, as this test binary is every child
// (TestMain), in the children too.
const testFastKind = "test-fast"

type fastEngine struct{}

func (fastEngine) Put(key, value []byte) error { return nil }
func (fastEngine) Close() error                { return nil }

func init() {
	gcstress.RegisterEngine(testFastKind, func(gcstress.Scenario) (gcstress.Engine, error) { return fastEngine{}, nil })
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestDurationAloneRunsThatLong: `-duration 3s` without -keys runs the
// scenario for 3 s (its windows end at 3 s, give or take a window), keys
// unbounded, and gets a verdict; with no -out the run writes a new
// gcstress-out/<UTC time>-<id> folder under the working directory, and
// the last line of stdout names its report.html by that relative path.
func TestDurationAloneRunsThatLong(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child for 3 s")
	}
	t.Chdir(t.TempDir())
	var stdout, stderr syncBuf
	args := []string{"-kinds", testFastKind, "-values", "100", "-scenario", "matrix", "-writers", "1",
		"-duration", "3s", "-window", "250ms", "-warmup", "1s"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	line := lastLine(stdout.String())
	m := regexp.MustCompile(`^open: (gcstress-out/\d{4}-\d\d-\d\dT\d{6}Z-[0-9a-f]{4}/report\.html)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("last line of stdout %q: want open: gcstress-out/<UTC time>-<id>/report.html", line)
	}
	if st, err := os.Stat(m[1]); err != nil || st.Size() == 0 {
		t.Fatalf("%s: %v", m[1], err)
	}
	in, err := os.Open(filepath.Join(filepath.Dir(m[1]), "samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	th := results.DefaultThresholds()
	th.Warmup = time.Second
	rs, err := results.ReadResults(in, th)
	if err != nil || len(rs) != 1 || rs[0].End == nil || len(rs[0].Windows) == 0 {
		t.Fatalf("results %+v: %v", rs, err)
	}
	r := rs[0]
	if !r.Scenario.DurationFirst() || r.Scenario.Duration != 3*time.Second || r.End.Reason != results.StopDuration {
		t.Fatalf("scenario %+v, end reason %s: want duration first, 3 s", r.Scenario, r.End.Reason)
	}
	// The windows cover the 3 s: the last ends within a window of them.
	if last := r.Windows[len(r.Windows)-1].T; last < 2.75 || last > 3.5 {
		t.Fatalf("last window ends at %.2f s: want 3 s +- one window (%d windows)", last, len(r.Windows))
	}
	if r.Verdict.Class == results.Inconclusive {
		t.Fatalf("inconclusive: %s", r.Verdict.Why)
	}
}

// TestOpenLine: after a table report the run's last line, on stdout,
// names report.html; after a machine-read format it goes to stderr and
// stdout is that format alone; an interrupted run's error names it; a
// run that wrote no reports names nothing. An absolute path under the
// working directory is shown relative to it.
func TestOpenLine(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sum := &gcstress.Summary{Out: filepath.Join(wd, "gcstress-out", "x")}
	want := "open: " + filepath.Join("gcstress-out", "x", "report.html") + "\n"
	for _, format := range []string{"", gcstress.FormatTable, gcstress.FormatJSON, gcstress.FormatYCSB} {
		var stdout, stderr syncBuf
		if err := openLine(format, sum, nil, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		got, other := stdout.String(), stderr.String()
		if format != "" && format != gcstress.FormatTable {
			got, other = other, got
		}
		if got != want || other != "" {
			t.Errorf("-format %q: line %q (want %q), other writer %q", format, got, want, other)
		}
	}
	var stdout syncBuf
	err = openLine(gcstress.FormatTable, &gcstress.Summary{Out: "/elsewhere/run"}, gcstress.ErrInterrupted, &stdout, &stdout)
	if ExitCode(err) != ExitInterrupted || !strings.HasSuffix(err.Error(), "; open "+filepath.Join("/elsewhere/run", "report.html")) || stdout.String() != "" {
		t.Errorf("interrupted: %v, printed %q", err, stdout.String())
	}
	err = openLine(gcstress.FormatTable, sum, gcstress.ErrWrite, &stdout, &stdout)
	if err != gcstress.ErrWrite || stdout.String() != "" {
		t.Errorf("write error: %v, printed %q", err, stdout.String())
	}
	if err := openLine(gcstress.FormatTable, nil, nil, &stdout, &stdout); err != nil || stdout.String() != "" {
		t.Errorf("no summary: %v, printed %q", err, stdout.String())
	}
}
