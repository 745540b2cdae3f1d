package gcstress

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/gcstress/results"
)

// TestExpandCount: -count N repeats the round N times, round major, each
// scenario's Repeat its round, its Name the plain name, and its folder
// its own; count 1 is the single round with Repeat 0.
func TestExpandCount(t *testing.T) {
	c := DefaultConfig()
	c.Out, c.Kinds, c.Values, c.Sets = t.TempDir(), []string{"heap", "arena"}, []int64{10, 100}, []string{SetMatrix, SetFailure, SetStall}
	one := Expand(c)
	for _, s := range one {
		if s.Repeat != 0 || s.Dir != filepath.Join(c.Out, strings.ReplaceAll(s.Name, "/", "-")) {
			t.Fatalf("count 1: %s repeat %d dir %s", s.Name, s.Repeat, s.Dir)
		}
	}
	c.Count = 3
	three := Expand(c)
	if len(three) != 3*len(one) {
		t.Fatalf("%d scenarios, want %d", len(three), 3*len(one))
	}
	dirs := map[string]bool{}
	for i, s := range three {
		want := one[i%len(one)]
		if s.Name != want.Name || s.Repeat != i/len(one)+1 {
			t.Errorf("#%d: %s repeat %d, want %s repeat %d", i, s.Name, s.Repeat, want.Name, i/len(one)+1)
		}
		if dirs[s.Dir] {
			t.Errorf("#%d: folder %s used twice", i, s.Dir)
		}
		dirs[s.Dir] = true
	}
	if d := filepath.Base(three[len(one)].Dir); d != three[0].DirName()+"-r2" {
		t.Errorf("round 2's first folder %s", d)
	}
	names := runNames(c)
	for _, s := range three {
		if !names(s.DirName()) {
			t.Errorf("-replace-out would not own %s", s.DirName())
		}
	}
}

// kneeStep is a write path that does probe MB/s flat out and whose GC CPU
// is over its limit above knee MB/s: a capacity search's steps without
// processes (package capacity's tests have the full fake).
func kneeStep(probe, knee float64) plan.Runner {
	return func(_ context.Context, s Scenario) (Result, error) {
		r := Result{Scenario: s, Verdict: Health{Class: results.Healthy}}
		if s.Rate == 0 {
			r.End = &Sample{Type: results.SampleEnd, MBps: probe}
			return r, nil
		}
		target := s.TargetMBps()
		r.End = &Sample{Type: results.SampleEnd, SteadyMBps: target, SteadyILatP99: int64(time.Millisecond)}
		wh := results.WindowHealth{T: 5, Class: results.Healthy, GCPct: 1}
		w := Sample{T: 5, CPUUsed: 1, GCCPU: 0.01}
		if target > knee {
			gc := results.DefaultThresholds().HealthyGC + 1
			wh.GCPct, wh.Class, wh.Cause, w.GCCPU = gc, results.Elevated, results.CauseGCCPU, gc/100
		}
		r.Verdict.Windows = []results.WindowHealth{{T: 1, Class: results.Healthy}, wh}
		r.Windows = []Sample{{T: 1, CPUUsed: 1}, w}
		return r, nil
	}
}

// TestRunAllRounds: the rounds follow each other, each round's capacity
// search after its scenarios, its steps in folders of their own (a
// confirmation runs a step again within its round, in the same folder, as
// without -count; never in another round's), and one Capacity per round
// and kind with its Repeat.
func TestRunAllRounds(t *testing.T) {
	c := DefaultConfig()
	c.Out, c.Kinds, c.Values, c.Sets, c.Count = t.TempDir(), []string{"heap", "arena"}, []int64{100}, []string{SetMatrix, SetCapacity}, 2
	var order []string
	dirs := map[string]int{} // folder: its round
	inner := kneeStep(100, 37)
	step := func(ctx context.Context, s Scenario) (Result, error) {
		order = append(order, fmt.Sprintf("%d %s", s.Repeat, s.Group))
		if r, ok := dirs[s.Dir]; (ok && r != s.Repeat) || (ok && s.Group == SetMatrix) {
			t.Errorf("%s %s: folder %s used before (round %d)", s.Name, s.Group, s.Dir, r)
		}
		if s.Dir != filepath.Join(c.Out, s.DirName()) || (s.Repeat > 1) != strings.HasSuffix(s.Dir, fmt.Sprintf("-r%d", s.Repeat)) {
			t.Errorf("%s round %d: folder %s", s.Name, s.Repeat, s.Dir)
		}
		dirs[s.Dir] = s.Repeat
		return inner(ctx, s)
	}
	sum := &Summary{}
	if err := runAll(context.Background(), c, Expand(c), sum, step, io.Discard); err != nil {
		t.Fatal(err)
	}
	// Round 1: its two matrix scenarios, then its capacity steps; round 2 likewise.
	var compact []string
	for _, o := range order {
		if len(compact) == 0 || compact[len(compact)-1] != o {
			compact = append(compact, o)
		}
	}
	if want := []string{"1 matrix", "1 capacity", "2 matrix", "2 capacity"}; !slices.Equal(compact, want) {
		t.Fatalf("order %v, want %v", compact, want)
	}
	if len(sum.Capacity) != 4 {
		t.Fatalf("%d capacity results", len(sum.Capacity))
	}
	for i, capa := range sum.Capacity {
		if capa.Repeat != i/2+1 || capa.SustainableMBps <= 0 {
			t.Errorf("capacity %d: repeat %d, sustainable %v", i, capa.Repeat, capa.SustainableMBps)
		}
	}
}

// TestReplayRepeats: a stream of two runs of one scenario replays as two
// Results with their repeats, and summary.json's view merges run by run.
func TestReplayRepeats(t *testing.T) {
	var b strings.Builder
	for r := 1; r <= 2; r++ {
		fmt.Fprintf(&b, `{"type":"start","scenario":"heap/100B","spec":{"name":"heap/100B","group":"matrix","kind":"heap","value":100,"repeat":%d},"proto":2}`+"\n", r)
		fmt.Fprintf(&b, `{"type":"end","scenario":"heap/100B","t":1,"keys":%d,"bytes":1000,"reason":"keys"}`+"\n", 10*r)
		fmt.Fprintf(&b, `{"type":"exit","scenario":"heap/100B","exit":{"message":"run %d"}}`+"\n", r)
	}
	rs, err := results.ReadResults(strings.NewReader(b.String()), results.DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Scenario.Repeat != 1 || rs[1].Scenario.Repeat != 2 || rs[0].End.Keys != 10 || rs[1].End.Keys != 20 ||
		rs[1].Exit.Message != "run 2" {
		t.Fatalf("replayed %+v", rs)
	}
	rec := slices.Clone(rs)
	rec[0].Wall, rec[1].Wall = 1, 2
	merged := results.MergeResults(rs, rec, results.DefaultThresholds())
	if merged[0].Wall != 1 || merged[1].Wall != 2 {
		t.Fatalf("merged walls %v %v", merged[0].Wall, merged[1].Wall)
	}
}

// TestCapacityPerBuildEnv: under -build-envs the capacity search runs per
// kind in each environment in turn (kind 1 in A, in B, then kind 2), every
// step in its environment's binary, named and foldered apart, and each
// Capacity names its environment, as bench.txt's key does.
func TestCapacityPerBuildEnv(t *testing.T) {
	c := DefaultConfig()
	c.Out, c.Kinds, c.Values, c.Sets = t.TempDir(), []string{"heap", "arena"}, []int64{100}, []string{SetCapacity}
	c.CapacityValues = []int64{100}
	c.BuildEnvs = []BuildEnv{{Name: "plain"}, {Name: "madv", Env: []string{"GODEBUG=madvdontneed=1"}}}
	var order []string
	dirs := map[string]string{} // folder: its environment
	inner := kneeStep(100, 37)
	step := func(ctx context.Context, s Scenario) (Result, error) {
		if o := s.Kind + " " + s.BuildEnv; len(order) == 0 || order[len(order)-1] != o {
			order = append(order, o)
		}
		if !strings.HasSuffix(s.Name, "/env="+s.BuildEnv) || s.Dir != filepath.Join(c.Out, s.DirName()) {
			t.Errorf("%s (env %q): folder %s", s.Name, s.BuildEnv, s.Dir)
		}
		if e, ok := dirs[s.Dir]; ok && e != s.BuildEnv {
			t.Errorf("%s: folder %s used by environment %s too", s.Name, s.Dir, e)
		}
		dirs[s.Dir] = s.BuildEnv
		return inner(ctx, s)
	}
	sum := &Summary{}
	if err := runAll(context.Background(), c, Expand(c), sum, step, io.Discard); err != nil {
		t.Fatal(err)
	}
	if want := []string{"heap plain", "heap madv", "arena plain", "arena madv"}; !slices.Equal(order, want) {
		t.Errorf("searched %q, want %q", order, want)
	}
	var got []string
	for _, capa := range sum.Capacity {
		got = append(got, capa.Kind+" "+capa.Env)
		if capa.SustainableMBps <= 0 || len(capa.Steps) == 0 || !strings.HasSuffix(capa.Steps[0].Scenario, "/env="+capa.Env) {
			t.Errorf("%s %s: sustainable %v, steps %+v", capa.Kind, capa.Env, capa.SustainableMBps, capa.Steps)
		}
	}
	if want := []string{"heap plain", "heap madv", "arena plain", "arena madv"}; !slices.Equal(got, want) {
		t.Errorf("capacity rows %q, want %q", got, want)
	}
	var keys []string
	for _, l := range compare.Lines(sum) {
		keys = append(keys, l.Key.Name())
	}
	if !slices.Contains(keys, "BenchmarkGCStress/set=capacity/kind=heap/value=100/env=madv") {
		t.Errorf("bench.txt lines %q lack the environment", keys)
	}
	c.BuildEnvs = nil
	sum = &Summary{}
	if err := runAll(context.Background(), c, Expand(c), sum, inner, io.Discard); err != nil || len(sum.Capacity) != 2 || sum.Capacity[0].Env != "" {
		t.Errorf("without environments: %v, %+v", err, sum.Capacity)
	}
}

// TestFrontierPerBuildEnv: under -build-envs every grid point runs in each
// environment in turn (setting, kind, environment), the rate probe in the
// first, and each point and recommendation names its environment.
func TestFrontierPerBuildEnv(t *testing.T) {
	c := DefaultConfig()
	c.Out, c.Kinds, c.Sets, c.CapacityValues = t.TempDir(), []string{"heap", "arena"}, []string{SetFrontier}, []int64{100}
	c.Frontier.Container, c.Frontier.GOGC, c.Frontier.MemLimitFracs, c.Frontier.Adaptive = 512<<20, []int{100, 200}, []float64{0}, false
	c.BuildEnvs = []BuildEnv{{Name: "plain"}, {Name: "madv", Env: []string{"GODEBUG=madvdontneed=1"}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var grid, probe []string
	inner := kneeStep(100, 37)
	step := func(ctx context.Context, s Scenario) (Result, error) {
		if !strings.HasSuffix(s.Name, "/env="+s.BuildEnv) || s.Dir != filepath.Join(c.Out, s.DirName()) {
			t.Errorf("%s (env %q): folder %s", s.Name, s.BuildEnv, s.Dir)
		}
		if strings.Contains(s.Name, "/gogc=") && !strings.Contains(s.Name, "/confirm/") {
			grid = append(grid, fmt.Sprintf("%d %s %s", s.GOGC, s.Kind, s.BuildEnv))
		} else if !strings.Contains(s.Name, "/confirm/") {
			probe = append(probe, s.BuildEnv)
		}
		return inner(ctx, s)
	}
	sum := &Summary{}
	if err := runFrontier(context.Background(), c, sum, step, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := []string{"100 heap plain", "100 heap madv", "100 arena plain", "100 arena madv", "200 heap plain", "200 heap madv", "200 arena plain", "200 arena madv"}
	if !slices.Equal(grid, want) {
		t.Errorf("grid %q, want %q", grid, want)
	}
	if len(probe) == 0 || slices.ContainsFunc(probe, func(e string) bool { return e != "plain" }) {
		t.Errorf("the rate probe ran in %q, want the first environment", probe)
	}
	for _, p := range sum.Frontier {
		if !strings.HasSuffix(p.Scenario, "/env="+p.Env) {
			t.Errorf("point %s names environment %q", p.Scenario, p.Env)
		}
	}
	var recs []string
	for _, r := range sum.Recommendation {
		recs = append(recs, r.Kind+" "+r.Env)
	}
	if want := []string{"heap plain", "heap madv", "arena plain", "arena madv"}; !slices.Equal(recs, want) {
		t.Errorf("recommendations %q, want %q", recs, want)
	}
}
