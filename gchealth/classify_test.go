package gchealth

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/writegc/writegc/gcmetrics/health"
)

// recordedLines calls each with every window line of a testdata file
// (gcstress's samples.jsonl lines), with its scenario.
func recordedLines(t *testing.T, file string, each func(scenario string, line []byte)) {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var head struct{ Type, Scenario string }
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatal(err)
		}
		if head.Type == "window" {
			each(head.Scenario, sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// recorded reads the window lines of a testdata file by scenario.
func recorded(t *testing.T, file string) map[string][]window {
	t.Helper()
	by := map[string][]window{}
	recordedLines(t, file, func(scenario string, line []byte) {
		var w window
		if err := json.Unmarshal(line, &w); err != nil {
			t.Fatal(err)
		}
		by[scenario] = append(by[scenario], w)
	})
	return by
}

// replay feeds windows to a classifier with the default rules.
func replay(w []window) []verdict {
	sp := Spiral{}
	sp.defaults()
	c := newClassifier(health.DefaultThresholds(), sp)
	out := make([]verdict, len(w))
	for i := range w {
		out[i] = c.step(&w[i])
	}
	return out
}

func statesOf(vs []verdict) string {
	b := make([]byte, len(vs))
	for i, v := range vs {
		b[i] = v.state[0]
	}
	return string(b)
}

// TestRecordedHealthy: a healthy service's windows (gcstress's arena and
// offheap kinds at 10 B) are healthy throughout, with no cause.
func TestRecordedHealthy(t *testing.T) {
	runs := recorded(t, "matrix.jsonl")
	for _, name := range []string{"arena/10B", "offheap/10B"} {
		for i, v := range replay(runs[name]) {
			if v.state != Healthy || v.n != 0 {
				t.Errorf("%s window %d: %s %v, want healthy without causes", name, i, v.state, v.causeList())
			}
		}
	}
}

// TestRecordedDegradingHeap: the heap kind under gcstress's failure load
// degrades on its GC CPU share and stays degraded; the arena kind under the
// same load is mostly healthy and never failing.
func TestRecordedDegradingHeap(t *testing.T) {
	runs := recorded(t, "degrading.jsonl")
	heap := replay(runs["failure/heap"])
	if got := statesOf(heap); got[0] == 'f' || got[len(got)-20:] != "dddddddddddddddddddd" {
		t.Fatalf("failure/heap states %s: want degraded through the last 20 windows", got)
	}
	last := heap[len(heap)-1]
	if last.causes[0] != CauseGCCPU || last.fig.GCCPURatio < 0.25 {
		t.Errorf("failure/heap last window: causes %v, GC CPU %.2f; want gc_cpu first, at least 0.25", last.causeList(), last.fig.GCCPURatio)
	}
	arena := replay(runs["failure/arena"])
	healthy := 0
	for _, v := range arena {
		if v.state == Failing {
			t.Fatalf("failure/arena: a failing window: %v %+v", v.causeList(), v.fig)
		}
		if v.state == Healthy {
			healthy++
		}
	}
	if healthy < len(arena)*2/3 {
		t.Errorf("failure/arena: %d of %d windows healthy (%s)", healthy, len(arena), statesOf(arena))
	}
}

// TestRecordedSpiral: the heap kind at GOMEMLIMIT 128 MiB ends in the
// spiral (live heap past the limit, the limiter engaged): failing, cause
// memlimit-spiral, only after Spiral.Windows spiral windows in a row.
func TestRecordedSpiral(t *testing.T) {
	runs := recorded(t, "spiral.jsonl")
	vs := replay(runs["failure/heap"])
	got := statesOf(vs)
	if got[len(got)-1] != 'f' || slices.Contains([]byte(got[:len(got)-1]), 'f') {
		t.Fatalf("failure/heap states %s: want failing at the last window only", got)
	}
	last := vs[len(vs)-1]
	if last.causes[0] != CauseMemlimitSpiral || !last.fig.LimiterEngaged || last.fig.HeapToLimitRatio < 0.95 || last.fig.SpiralWindows != 3 {
		t.Errorf("last window: causes %v figures %+v", last.causeList(), last.fig)
	}
	for i, v := range replay(runs["failure/arena"]) {
		if v.state != Healthy {
			t.Errorf("failure/arena window %d: %s %v", i, v.state, v.causeList())
		}
	}
}

// TestSpiralNeedsWindowsInARow: spiral windows broken by one that is not
// do not fail; Windows of them in a row do, and one ordinary window ends it.
func TestSpiralNeedsWindowsInARow(t *testing.T) {
	const limit = 100 << 20
	win := func(spiral bool) window {
		s := window{Dur: 1, WinCycles: 5, CPUUsed: 1, GCCPU: 0.6, Assist: 0.1,
			HeapLive: 97 << 20, HeapObjects: 98 << 20, HeapGoal: 99 << 20, MemLimit: limit, LimiterCycles: 100}
		if !spiral {
			s.HeapLive = 50 << 20
		}
		return s
	}
	seq := []bool{true, true, false, true, true, true, true, false}
	want := "dddddffd"
	w := make([]window, len(seq))
	for i, sp := range seq {
		w[i] = win(sp)
	}
	vs := replay(w)
	if got := statesOf(vs); got != want {
		t.Fatalf("states %s, want %s", got, want)
	}
	if c := vs[5].causeList(); !slices.Equal(c, []Cause{CauseMemlimitSpiral, CauseGCCPU, CauseAssist}) {
		t.Errorf("spiral causes %v", c)
	}
	// The limiter alone (GC share under the high mark) counts too.
	for i := range w {
		w[i] = win(true)
		w[i].GCCPU, w[i].LimiterLast, w[i].LimiterCycles = 0.3, uint64(100+i), uint64(100+i)
	}
	if got := statesOf(replay(w)); got != "ddffffff" {
		t.Errorf("limiter-only spiral: %s", got)
	}
}

// TestHeapOverGoal: a heap past its goal degrades a healthy window, cause
// heap_over_goal, as gcstress does (TestSameClassesAsGcstress).
func TestHeapOverGoal(t *testing.T) {
	w := []window{{Dur: 1, WinCycles: 1, CPUUsed: 1, GCCPU: 0.01, HeapObjects: 11, HeapGoal: 10}}
	v := replay(w)[0]
	if v.state != Degraded || !slices.Equal(v.causeList(), []Cause{CauseHeapOverGoal}) {
		t.Fatalf("%s %v", v.state, v.causeList())
	}
}

// TestMonitorChanges drives a Monitor (its sampler idle: a one-hour
// window) with recorded windows and checks the Changes and the State.
func TestMonitorChanges(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour})
	var got []Change
	m.OnChange(func(c Change) { got = append(got, c) })
	w := recorded(t, "spiral.jsonl")["failure/heap"]
	at := time.Unix(1700000000, 0)
	for i := range w {
		if ch, ok := m.observe(&w[i], at.Add(time.Duration(i)*time.Second)); ok {
			m.changed(ch)
		}
	}
	if len(got) == 0 || got[len(got)-1].To != Failing || got[len(got)-1].Causes[0] != CauseMemlimitSpiral {
		t.Fatalf("changes %+v", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].From != got[i-1].To {
			t.Errorf("change %d from %s, the one before went to %s", i, got[i].From, got[i-1].To)
		}
	}
	st := m.State()
	if st.State != Failing || st.Transitions != uint64(len(got)) || st.Windows != uint64(len(w)) || st.WindowS != 3600 ||
		!st.Since.Equal(got[len(got)-1].At) {
		t.Errorf("state %+v", st)
	}
}

// TestRankFollowsStates: a state's rank is its place in States, best
// first; a state States does not list has none.
func TestRankFollowsStates(t *testing.T) {
	for i, s := range States() {
		if got := s.Rank(); got != i {
			t.Errorf("%s.Rank() = %d, want %d", s, got, i)
		}
	}
	if got := State("unknown").Rank(); got != -1 {
		t.Errorf("unknown state's rank %d, want -1", got)
	}
}
