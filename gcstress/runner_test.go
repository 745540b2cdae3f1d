package gcstress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// tinyScenario is small enough to run in a second or two under -race.
func tinyScenario(t *testing.T, name, kind string, keys int64) Scenario {
	return Scenario{Name: name, Group: "matrix", Kind: kind, Value: 100, Keys: keys, Duration: 20 * time.Second,
		Memstore: 1 << 20, Regions: 1, Flushers: 1, Backpressure: true, MaxPendingFlushes: 2, GOGC: 100,
		Path: "server", Writers: 2, Window: 100 * time.Millisecond, LatencyEvery: 1, Seed: 1,
		Dir: filepath.Join(t.TempDir(), name), Thresholds: results.DefaultThresholds()}
}

// syncBuf is a goroutine-safe bytes.Buffer.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunnerCompletes(t *testing.T) {
	var samples syncBuf
	r := &Runner{Samples: &samples}
	s := tinyScenario(t, "arena/100B", "arena", 20_000)
	res, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.End == nil || res.End.Reason != "keys" || res.End.Keys != 20_000 || res.Exit.Died {
		t.Fatalf("end %+v exit %+v stderr %s", res.End, res.Exit, res.Stderr)
	}
	if res.Verdict.Class == results.Failed || res.Foreign != nil {
		t.Fatalf("verdict %+v, foreign output %+v", res.Verdict, res.Foreign)
	}
	if res.End.LatN != 20_000 || res.End.LatP50 <= 0 || res.End.LatMax < res.End.LatP999 || res.End.Hist == nil {
		t.Fatalf("latency: n %d p50 %d p99.9 %d max %d", res.End.LatN, res.End.LatP50, res.End.LatP999, res.End.LatMax)
	}
	lines := strings.Split(strings.TrimSpace(samples.String()), "\n")
	if want := len(res.Windows) + 3; len(lines) != want {
		t.Fatalf("%d lines on disk, want %d (start, windows, end, exit)", len(lines), want)
	}
	var last Sample
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != results.SampleExit || last.Exit == nil || last.Exit.Died {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	var first Sample
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Type != "start" || first.Spec.Name != s.Name || first.PID == 0 || first.Proto != StreamProto {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
}

// TestRunnerChildKilledMidRun kills a child with SIGKILL after a few windows:
// the row is failed at the child's last progress, and every line it
// streamed is on disk.
func TestRunnerChildKilledMidRun(t *testing.T) {
	var samples syncBuf
	var pid, windows int
	r := &Runner{Samples: &samples}
	r.OnLine = func(s Scenario, l Sample, v Health) {
		switch l.Type {
		case "start":
			pid = l.PID
		case "window":
			windows++
			if windows == 4 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	s := tinyScenario(t, "heap/100B", "heap", 1_000_000_000)
	res, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exit.Died || res.End != nil || !strings.Contains(res.Exit.Message, "killed") {
		t.Fatalf("exit %+v end %+v", res.Exit, res.End)
	}
	if res.Verdict.Class != results.Failed || res.Verdict.FailedAt <= 0 || res.Verdict.FailedAt != res.Last.Progress {
		t.Fatalf("verdict %+v last progress %v", res.Verdict, res.Last.Progress)
	}
	if len(res.Windows) < 4 || res.Last.Keys == 0 {
		t.Fatalf("%d windows, last %+v", len(res.Windows), res.Last)
	}
	on := strings.Count(samples.String(), `"type":"window"`)
	if on != len(res.Windows) {
		t.Fatalf("%d windows on disk, %d in the result", on, len(res.Windows))
	}
	if c := view.CellText(res); !strings.HasPrefix(c, "failed at ") || !strings.Contains(c, "died: signal: killed") {
		t.Fatalf("cell %q", c)
	}
}

// TestRunnerRSSCap: a heap that must grow past a small hard cap (flush
// slower than ingest, no backpressure) stops the child at the cap.
func TestRunnerRSSCap(t *testing.T) {
	r := &Runner{}
	s := tinyScenario(t, "failure/heap", "heap", 1_000_000_000)
	s.Backpressure, s.FlushBW, s.RSSCap, s.Group = false, 64<<10, 48<<20, "failure"
	res, err := r.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exit.RSSCap || res.Verdict.Class != results.Failed {
		t.Fatalf("exit %+v verdict %s %s; end %+v", res.Exit, res.Verdict.Class, res.Verdict.Why, res.End)
	}
	if !strings.Contains(view.CellText(res), "RSS cap") {
		t.Fatalf("cell %q", view.CellText(res))
	}
}

// TestRunInterruptedWritesReport cancels the run during its first
// scenario: Run returns ErrInterrupted and the reports of what ran exist.
func TestRunInterruptedWritesReport(t *testing.T) {
	out := t.TempDir()
	c := DefaultConfig()
	c.Out, c.Kinds, c.Values, c.Keys, c.Sets = out, []string{"heap", "arena"}, []int64{100}, []int64{1_000_000_000}, []string{"matrix"}
	c.Memstore, c.Window, c.Duration, c.Regions = 1<<20, 100*time.Millisecond, 30*time.Second, 1
	ctx, cancel := context.WithCancel(context.Background())
	windows := 0
	r := &Runner{StopOnFail: true}
	var stdout, stderr syncBuf
	go func() {
		for {
			time.Sleep(50 * time.Millisecond)
			if _, err := os.Stat(filepath.Join(out, "samples.jsonl")); err == nil {
				b, _ := os.ReadFile(filepath.Join(out, "samples.jsonl"))
				if windows = strings.Count(string(b), `"window"`); windows >= 3 {
					cancel()
					return
				}
			}
		}
	}()
	_, err := runWith(ctx, c, r, Options{Report: &stdout, Progress: &stderr})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	for _, f := range []string{"summary.json", "samples.jsonl", "report.md", "timeline-100B.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	var sum Summary
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil || !sum.Interrupted || len(sum.Results) != 1 || sum.Results[0].Stopped != "interrupted" {
		t.Fatalf("summary: %v %+v", err, sum.Results)
	}
	if !strings.Contains(stdout.String(), "INTERRUPTED") {
		t.Fatalf("report does not say interrupted:\n%s", stdout.String())
	}
}
