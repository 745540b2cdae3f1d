package gcstress

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// nopEngine allocates nothing: what a test of the harness's own
// allocations drives.
type nopEngine struct{}

func (nopEngine) Put(key, value []byte) error { return nil }
func (nopEngine) Stats() EngineStats          { return EngineStats{} }
func (nopEngine) Close() error                { return nil }

// testNopKind is nopEngine registered: it holds nothing however long it runs.
const testNopKind = "test-nop"

func init() {
	RegisterEngine(testNopKind, func(Scenario) (Engine, error) { return nopEngine{}, nil })
}

// runMatrix runs c's matrix through the parent and returns its one result.
func runMatrix(t *testing.T, c Config) Result {
	t.Helper()
	c.Out, c.Sets, c.Kinds, c.Values, c.Regions = t.TempDir(), []string{SetMatrix}, []string{testNopKind}, []int64{100}, 1
	sum, err := runWith(context.Background(), c, &Runner{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Results) != 1 || sum.Results[0].End == nil {
		t.Fatalf("results %+v", sum.Results)
	}
	return sum.Results[0]
}

// TestDurationFirst: with keys unbounded (what -duration without -keys
// gives), a scenario runs for its duration: the end record's t is at least
// the duration, its progress is in time, and it has a verdict.
func TestDurationFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("runs duration-first scenarios: make test-slow")
	}
	c := DefaultConfig()
	c.Keys, c.Duration, c.Window = []int64{results.UnboundedKeys}, 3*time.Second, 250*time.Millisecond
	c.Thresholds.Warmup = time.Second
	r := runMatrix(t, c)
	e := r.End
	if !r.Scenario.DurationFirst() || r.Scenario.MinRun != 0 {
		t.Fatalf("scenario %+v", r.Scenario)
	}
	if e.T < 3 || e.Reason != results.StopDuration || e.Progress < 0.99 {
		t.Fatalf("end t %.2f s, reason %s, progress %.2f: want >= 3 s, duration, 1", e.T, e.Reason, e.Progress)
	}
	if len(r.Windows) == 0 || r.Windows[0].Progress > 0.5 {
		t.Fatalf("first window's progress %v: want the fraction of the duration", r.Windows)
	}
	if r.Verdict.Class == results.Inconclusive {
		t.Fatalf("inconclusive: %s", r.Verdict.Why)
	}
	if !strings.Contains(r.Scenario.Describe(), "keys unbounded") {
		t.Fatalf("describe: %s", r.Scenario.Describe())
	}
}

// TestMinRunExtendsAFastScenario: a key-bounded matrix scenario that
// writes its keys at once goes on writing until the warm-up and
// MinWindows windows passed, so it gets a verdict; with NoMinRun it stops
// at its keys and is inconclusive.
func TestMinRunExtendsAFastScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario past its least run time: make test-slow")
	}
	c := DefaultConfig()
	c.Keys, c.Duration, c.Window = []int64{1000}, 0, 100*time.Millisecond
	c.Thresholds.Warmup = 500 * time.Millisecond
	r := runMatrix(t, c)
	min := results.MinRunFor(c.Thresholds, c.Window)
	if r.Scenario.MinRun != min || r.End.T < min.Seconds() || r.End.Keys <= 1000 || r.End.Reason != results.StopKeys {
		t.Fatalf("min run %v: end t %.2f s, %d keys, reason %s", r.Scenario.MinRun, r.End.T, r.End.Keys, r.End.Reason)
	}
	if r.Verdict.Class == results.Inconclusive {
		t.Fatalf("inconclusive: %s", r.Verdict.Why)
	}
	c.NoMinRun = true
	r = runMatrix(t, c)
	if r.End.Keys != 1000 || r.Verdict.Class != results.Inconclusive || !strings.Contains(r.Verdict.Why, "at least 3 are needed") {
		t.Fatalf("no min run: %d keys, %s (%s)", r.End.Keys, r.Verdict.Class, r.Verdict.Why)
	}
}
