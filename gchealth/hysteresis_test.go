package gchealth

import (
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// verdictsOf makes verdicts of window classes given as letters (h, e, d, f).
func verdictsOf(states string) []verdict {
	out := make([]verdict, len(states))
	for i := range states {
		for _, s := range States() {
			if s[0] == states[i] {
				out[i] = verdict{state: s}
			}
		}
	}
	return out
}

// TestHysteresisRule: worse takes effect at once; better only after need
// windows in a row better than the state, and then to the worst of them.
func TestHysteresisRule(t *testing.T) {
	for _, c := range []struct {
		need      int
		raw, want string
	}{
		{1, "hdhehfh", "hdhehfh"},
		{3, "hdhhdhhhh", "hddddddhh"}, // a degraded window restarts the count
		{3, "hfedhhh", "hfffddd"},     // failing held; then the worst of e, d, h
		{3, "hfedehhhh", "hfffdddhh"},
		{2, "heheh", "heeee"},
	} {
		h := hysteresis{need: c.need}
		cur := verdict{state: Healthy}
		got := make([]byte, 0, len(c.raw))
		for _, v := range verdictsOf(c.raw) {
			cur = h.apply(cur, v)
			got = append(got, cur.state[0])
		}
		if string(got) != c.want {
			t.Errorf("need %d: %s gives %s, want %s", c.need, c.raw, got, c.want)
		}
	}
}

// windowAt92 is an idle window of a process whose live heap sits at 92%
// of GOMEMLIMIT, its GC CPU share gc (0..1) over one completed cycle.
func windowAt92(gc float64) window {
	return window{Dur: 1, WinCycles: 1, CPUUsed: 1, GCCPU: gc,
		HeapLive: 92 << 20, HeapObjects: 92 << 20, HeapGoal: 99 << 20, MemLimit: 100 << 20}
}

// transitionsPerMinute feeds windows (1 s apart) to a Monitor of opts and
// returns the most state changes in any 60 consecutive windows.
func transitionsPerMinute(t *testing.T, opts Options, ws []window) int {
	t.Helper()
	m := newMonitor(t, opts)
	at := time.Unix(1700000000, 0)
	var changes []int
	for i := range ws {
		if _, ok := m.observe(&ws[i], at.Add(time.Duration(i)*time.Second)); ok {
			changes = append(changes, i)
		}
	}
	most := 0
	for i, c := range changes {
		n := 0
		for _, d := range changes[i:] {
			if d-c < 60 {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// TestIdleAt92Flaps: an idle process at 92% of its limit whose windows
// flap between degraded and elevated (runs of 1 to 6 windows, about 13
// changes a minute, as a real one did) changes state at most twice a
// minute with the default hysteresis, and far more without it.
func TestIdleAt92Flaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ws []window
	for len(ws) < 600 {
		gc := 0.15 // elevated
		if len(ws)%2 == 0 {
			gc = 0.30 // degraded
		}
		for range 1 + rng.IntN(6) {
			ws = append(ws, windowAt92(gc))
		}
	}
	if got := transitionsPerMinute(t, Options{Window: time.Second}, ws); got > 2 {
		t.Errorf("default hysteresis: %d changes in a minute, want at most 2", got)
	}
	if got := transitionsPerMinute(t, Options{Window: time.Second, CalmWindows: 1}, ws); got < 6 {
		t.Errorf("without hysteresis: %d changes in a minute; the windows do not flap as the test means", got)
	}
}

// TestCalmWindowsDefault: the default holds a state for a minute of
// windows at any window length; a negative value is refused.
func TestCalmWindowsDefault(t *testing.T) {
	for win, want := range map[time.Duration]int{time.Second: 60, 250 * time.Millisecond: 240, 7 * time.Second: 9, time.Hour: 1} {
		o := Options{Window: win}
		if _, err := o.resolve(); err != nil || o.CalmWindows != want {
			t.Errorf("window %v: CalmWindows %d (%v), want %d", win, o.CalmWindows, err, want)
		}
	}
	o := Options{CalmWindows: -1}
	if _, err := o.resolve(); err == nil || !strings.Contains(err.Error(), "CalmWindows -1") {
		t.Errorf("CalmWindows -1: %v", err)
	}
}

// TestStatusShowsHeld: while the hysteresis holds the state, the JSON and
// the page say so (the latest window's class, the calm windows so far).
func TestStatusShowsHeld(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour, CalmWindows: 5})
	at := time.Unix(1700000000, 0)
	for i, w := range []window{winHealthy, winOverGoal, winHealthy, winHealthy} {
		m.observe(&w, at.Add(time.Duration(i)*time.Second))
	}
	st := m.State()
	if st.State != Degraded || st.WindowState != Healthy || st.Calm != 2 || st.CalmNeeded != 5 ||
		len(st.Causes) == 0 || st.Causes[0] != CauseHeapOverGoal {
		t.Fatalf("state %+v", st)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if body := rec.Body.String(); !strings.Contains(body, "latest window healthy: held degraded until 5 calm windows in a row (2 so far)") {
		t.Errorf("page: %s", body)
	}
}

// TestWorseTransitionCaptured: healthy, degraded, failing within one
// CaptureEvery: both transitions are captured, the failing one too.
func TestWorseTransitionCaptured(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour, CaptureDir: t.TempDir()})
	var got []Change
	m.OnChange(func(c Change) { got = append(got, c) })
	at := time.Unix(1700000000, 0)
	for i, w := range []window{winHealthy, winOverGoal, winSpiral, winSpiral, winSpiral} {
		if ch, ok := m.observe(&w, at.Add(time.Duration(i)*time.Second)); ok {
			m.changed(ch)
		}
	}
	if len(got) != 2 || got[0].To != Degraded || got[1].To != Failing {
		t.Fatalf("changes %+v", got)
	}
	for _, c := range got {
		if len(c.Capture) == 0 || c.CaptureSkipped != "" {
			t.Errorf("into %s: capture %v, skipped %q, error %v", c.To, c.Capture, c.CaptureSkipped, c.CaptureErr)
		}
	}
	if st := m.State(); len(st.LastCapture) == 0 || !strings.HasSuffix(strings.Split(st.LastCapture[0], "/")[0], "-failing") {
		t.Errorf("last capture %v, want the failing one", st.LastCapture)
	}
}

// TestCaptureSkipNamed: a transition within CaptureEvery into a state no
// worse than the last capture's gets no capture, and the Change, the JSON
// and the page say why; once CaptureEvery has passed it is captured again
// and the skip is cleared.
func TestCaptureSkipNamed(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour, CaptureDir: t.TempDir(), CalmWindows: 1})
	var got []Change
	m.OnChange(func(c Change) { got = append(got, c) })
	at := time.Unix(1700000000, 0)
	feedAt := func(start time.Time, ws ...window) {
		for i, w := range ws {
			if ch, ok := m.observe(&w, start.Add(time.Duration(i)*time.Second)); ok {
				m.changed(ch)
			}
		}
	}
	feedAt(at, winHealthy, winOverGoal, winHealthy, winOverGoal)
	if len(got) != 3 || len(got[0].Capture) == 0 || got[2].To != Degraded || len(got[2].Capture) != 0 ||
		!strings.Contains(got[2].CaptureSkipped, "within CaptureEvery (1m0s)") {
		t.Fatalf("changes %+v", got)
	}
	st := m.State()
	js, _ := json.Marshal(st)
	if !strings.Contains(string(js), `"capture_skipped":"within CaptureEvery`) {
		t.Errorf("json: %s", js)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if !strings.Contains(rec.Body.String(), "capture skipped</td><td colspan=\"3\">within CaptureEvery") {
		t.Errorf("page does not name the skip: %s", rec.Body)
	}
	feedAt(at.Add(2*time.Minute), winHealthy, winOverGoal)
	if last := got[len(got)-1]; len(last.Capture) == 0 || last.CaptureSkipped != "" || m.State().CaptureSkipped != "" {
		t.Errorf("after CaptureEvery: %+v, state skipped %q", last, m.State().CaptureSkipped)
	}
}

// TestPageTimeAxis: every chart has a time axis, labelled with UTC times
// at round steps over the history's span (from the first window's start
// to the last window's end).
func TestPageTimeAxis(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
	for _, c := range []struct {
		window time.Duration
		labels []string
	}{
		{time.Hour, []string{">02:10<", ">02:30<", ">03:00 UTC<"}},            // 02:04 to 03:05, every 10 min
		{time.Second, []string{">03:04:00<", ">03:04:30<", ">03:05:00 UTC<"}}, // 03:03:59 to 03:05:00, every 10 s
	} {
		m := newMonitor(t, Options{Window: c.window})
		for i := range 61 {
			m.observe(&winHealthy, at.Add(time.Duration(i)*time.Second))
		}
		body, err := m.page()
		if err != nil {
			t.Fatal(err)
		}
		page := string(body)
		if n := strings.Count(page, `<g class="axis"`); n != 4 {
			t.Errorf("window %v: %d time axes, want 4 (one a chart)", c.window, n)
		}
		for _, label := range c.labels {
			if n := strings.Count(page, label); n != 4 {
				t.Errorf("window %v: label %s on %d charts, want 4", c.window, label, n)
			}
		}
	}
}
