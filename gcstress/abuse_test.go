package gcstress

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/writegc/writegc/explain"
)

// TestParseFlagsRejectsAbuse: each careless value is a usage error (exit 2)
// that names the flag, before any work.
func TestParseFlagsRejectsAbuse(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		flag string
	}{
		{"negative fail-duration", []string{"-fail-duration", "-1s"}, "-fail-duration"},
		{"fail-duration removing the stall's cap", []string{"-fail-duration", "1ns"}, "-fail-duration"},
		{"fail-duration whose half is under 1ms", []string{"-fail-duration", "1500us"}, "-fail-duration"},
		{"sub-millisecond duration", []string{"-duration", "1ns"}, "-duration"},
		{"memstore x regions overflow", []string{"-memstore", "4000000T", "-regions", "3"}, "-memstore"},
		{"duplicate kind", []string{"-kinds", "arena,arena"}, "-kinds"},
		{"duplicate value size", []string{"-values", "1KB,1024"}, "-values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFlags(append([]string{"-out", t.TempDir()}, c.args...), io.Discard)
			if !errors.Is(err, ErrUsage) || ExitCode(err) != 2 || !strings.Contains(err.Error(), c.flag) {
				t.Fatalf("%v: err %v, want a usage error naming %s", c.args, err, c.flag)
			}
		})
	}
	// The boundaries stay accepted.
	for _, args := range [][]string{{"-fail-duration", "2ms"}, {"-fail-duration", "0"}, {"-duration", "1ms"}, {"-memstore", "1GB", "-regions", "1024", "-rss-cap", "off", "-scenario", "matrix"}} {
		if _, err := ParseFlags(append([]string{"-out", t.TempDir()}, args...), io.Discard); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// tinyRun is a one-scenario command line that finishes in about a second.
func tinyRun(out string, extra ...string) []string {
	return append([]string{"-quick", "-kinds", "arena", "-values", "100", "-keys", "20K", "-memstore", "1MB", "-regions", "1",
		"-scenario", "matrix", "-out", out, "-format", "json"}, extra...)
}

// TestOutReuseRefused: a run into the -out folder of an earlier run is a
// usage error naming the folder and -replace-out, and it leaves the
// earlier run's files untouched.
func TestOutReuseRefused(t *testing.T) {
	out := t.TempDir()
	earlier := `{"type":"start","scenario":"arena/100B"}` + "\n"
	if err := os.WriteFile(filepath.Join(out, "samples.jsonl"), []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Main(context.Background(), tinyRun(out), io.Discard, io.Discard)
	if ExitCode(err) != 2 || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "-replace-out") {
		t.Fatalf("run into %s: %v (exit %d), want exit 2 naming the folder and -replace-out", out, err, ExitCode(err))
	}
	if b, _ := os.ReadFile(filepath.Join(out, "samples.jsonl")); string(b) != earlier {
		t.Fatalf("the refused run changed samples.jsonl:\n%s", b)
	}
}

// TestReplaceOut: -replace-out removes the earlier run's files (its samples
// are not appended to) and keeps files gcstress did not write.
func TestReplaceOut(t *testing.T) {
	out := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("samples.jsonl", `{"type":"start","scenario":"old/run"}`+"\n")
	write("summary.json", `{"old":true}`)
	write("timeline-old.png", "png")
	write("old-scenario/cpu.pprof", "")
	write("notes.txt", "mine")
	write("mine/data.csv", "1,2")
	var stderr syncBuf
	if err := Main(context.Background(), tinyRun(out, "-replace-out"), io.Discard, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, _ := os.ReadFile(filepath.Join(out, "samples.jsonl"))
	if strings.Contains(string(b), "old/run") || strings.Count(string(b), `"type":"start"`) != 1 {
		t.Fatalf("samples.jsonl holds the earlier run's lines:\n%s", b)
	}
	for _, gone := range []string{"timeline-old.png", "old-scenario"} {
		if _, err := os.Stat(filepath.Join(out, gone)); !os.IsNotExist(err) {
			t.Errorf("%s left from the earlier run: %v", gone, err)
		}
	}
	for _, kept := range []string{"notes.txt", "mine/data.csv"} {
		if _, err := os.Stat(filepath.Join(out, kept)); err != nil {
			t.Errorf("%s removed: %v", kept, err)
		}
	}
	if !strings.Contains(stderr.String(), "notes.txt") {
		t.Errorf("no note of the files left: %s", stderr.String())
	}
}

// TestDefaultOutIsNew: without -out, two runs started in the same second
// get different folders (what `make stress` twice relies on).
func TestDefaultOutIsNew(t *testing.T) {
	parent := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := newOutDir(parent, now)
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	if second := newOutDir(parent, now); second != first {
		t.Fatalf("an empty folder was not reused: %s, %s", first, second)
	}
	os.WriteFile(filepath.Join(first, "samples.jsonl"), []byte("x\n"), 0o644)
	second := newOutDir(parent, now)
	if second == first || checkOutEmpty(second, false) != nil {
		t.Fatalf("second default -out %s (first %s)", second, first)
	}
}

// TestChildFlushesProfilesOnSignal: a child told to stop while its writers
// are blocked (flush far slower than ingest, backpressure on) and killed
// 900 ms later, before its engine shuts down, still leaves a complete CPU
// profile and a trace that explain reads.
func TestChildFlushesProfilesOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child for about two seconds")
	}
	s := tinyScenario(t, "stall/heap", "heap", 1_000_000_000)
	s.Memstore, s.FlushBW, s.MaxPendingFlushes, s.Group = 64<<10, 1<<10, 1, "stall"
	s.Profile, s.Thresholds.Warmup = "cpu,trace", 200*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pid int
	r := &Runner{Grace: 900 * time.Millisecond}
	r.OnLine = func(_ Scenario, l Sample, _ Verdict) {
		switch {
		case l.Type == "start":
			pid = l.PID
		case l.Type == "window" && l.T >= 0.6 && ctx.Err() == nil:
			_ = syscall.Kill(pid, syscall.SIGTERM)
			cancel() // the runner kills the child after Grace
		}
	}
	res, err := r.Run(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil {
		t.Fatalf("no signal sent: %d windows, exit %+v", len(res.Windows), res.Exit)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "cpu.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profile.ParseData(b); err != nil || len(b) == 0 {
		t.Fatalf("cpu.pprof (%d bytes) unreadable after the signal: %v", len(b), err)
	}
	a, err := explain.Explain(s.Dir)
	if err != nil || len(a.Traces) == 0 {
		t.Fatalf("explain: %v", err)
	}
}
