package gcstress

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress/internal/runner"
)

// tinyConfig is a one-scenario run that finishes in about a second.
func tinyConfig(out string) Config {
	c := DefaultConfig()
	c.Kinds, c.Values, c.Keys, c.Sets = []string{"arena"}, []int64{100}, []int64{20_000}, []string{SetMatrix}
	c.Memstore, c.Regions, c.Window, c.Out, c.Format = 1<<20, 1, 250*time.Millisecond, out, FormatJSON
	return c
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
	_, err := Run(context.Background(), tinyConfig(out), Options{})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "-replace-out") {
		t.Fatalf("run into %s: %v, want a usage error naming the folder and -replace-out", out, err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "samples.jsonl")); string(b) != earlier {
		t.Fatalf("the refused run changed samples.jsonl:\n%s", b)
	}
}

// TestDefaultOutIsNew: without -out, two runs started in the same second
// get different folders (what `make stress` twice relies on), named
// parent/<UTC time>-<id>, even when they drew the same id.
func TestDefaultOutIsNew(t *testing.T) {
	parent := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	first := runner.NewDir(parent, now, "ab12")
	if want := filepath.Join(parent, "2026-01-02T020405Z-ab12"); first != want {
		t.Fatalf("default folder %s, want %s", first, want)
	}
	if err := os.MkdirAll(first, 0o755); err != nil {
		t.Fatal(err)
	}
	if second := runner.NewDir(parent, now, "ab12"); second != first {
		t.Fatalf("an empty folder was not reused: %s, %s", first, second)
	}
	os.WriteFile(filepath.Join(first, "samples.jsonl"), []byte("x\n"), 0o644)
	second := runner.NewDir(parent, now, "ab12")
	if second == first || runner.CheckEmpty(second, false) != nil {
		t.Fatalf("second default -out %s (first %s)", second, first)
	}
	if id := runner.ShortID(); !regexp.MustCompile(`^[0-9a-f]{4}$`).MatchString(id) {
		t.Fatalf("short id %q", id)
	}
	// The default folder is scratch: writegc's .gitignore keeps it out of
	// the committed tree, in any folder a run starts from.
	ignore, err := os.ReadFile(filepath.Join("..", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), DefaultOutParent+"/") {
		t.Fatalf(".gitignore does not list %s/:\n%s", DefaultOutParent, ignore)
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
	r.OnLine = func(_ Scenario, l Sample, _ Health) {
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
