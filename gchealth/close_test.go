package gchealth

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// deadline bounds every wait of these tests: generous for a loaded
// machine, and a deadlock fails the test instead of hanging it.
const deadline = 2 * time.Minute

// feed returns a window source that replays ws, then repeats the last.
func feed(ws ...window) func(*window, time.Time) {
	var mu sync.Mutex
	i := 0
	return func(s *window, _ time.Time) {
		mu.Lock()
		defer mu.Unlock()
		*s = ws[min(i, len(ws)-1)]
		i++
	}
}

// gated is feed(ws...) after ready is closed, healthy windows before:
// the test's functions are in place before the first change.
func gated(ready <-chan struct{}, ws ...window) func(*window, time.Time) {
	f := feed(ws...)
	return func(s *window, now time.Time) {
		select {
		case <-ready:
			f(s, now)
		default:
			*s = winHealthy
		}
	}
}

// Synthetic windows: a healthy one, one whose heap passed its goal
// (degraded), and a death-spiral one (failing after Spiral.Windows).
var (
	winHealthy  = window{Dur: 1, WinCycles: 1, CPUUsed: 1, GCCPU: 0.01, HeapObjects: 5, HeapGoal: 10}
	winOverGoal = window{Dur: 1, WinCycles: 1, CPUUsed: 1, GCCPU: 0.01, HeapObjects: 11, HeapGoal: 10}
	winSpiral   = window{Dur: 1, WinCycles: 5, CPUUsed: 1, GCCPU: 0.6, Assist: 0.1,
		HeapLive: 97 << 20, HeapObjects: 98 << 20, HeapGoal: 99 << 20, MemLimit: 100 << 20, LimiterCycles: 100}
)

// within runs f and fails the test if it has not returned by deadline.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%s: still blocked after %v (deadlock)", what, deadline)
	}
}

// TestCloseFromCallback: an OnChange function or OnSpiral that calls Close
// gets it back (no deadlock), the Monitor stops sampling, and later Close
// calls return at once. Run it with -race -count=20.
func TestCloseFromCallback(t *testing.T) {
	for _, c := range []struct {
		name   string
		spiral bool
		ws     []window
	}{
		{"OnChange", false, []window{winHealthy, winOverGoal}},
		{"OnSpiral", true, []window{winHealthy, winSpiral}},
	} {
		t.Run(c.name, func(t *testing.T) {
			called, ready := make(chan error, 1), make(chan struct{})
			var m *Monitor
			closeIt := func(Change) { <-ready; called <- m.Close() }
			o := Options{Window: MinWindow, CaptureDir: t.TempDir(), CaptureEvery: time.Nanosecond}
			if c.spiral {
				o.OnSpiral = closeIt
			}
			m, err := newWith(o, gated(ready, c.ws...))
			if err != nil {
				t.Fatal(err)
			}
			if !c.spiral {
				m.OnChange(closeIt)
			}
			close(ready)
			select {
			case err := <-called:
				if err != nil {
					t.Errorf("Close from the callback: %v", err)
				}
			case <-time.After(deadline):
				t.Fatalf("Close from the callback did not return within %v", deadline)
			}
			within(t, "the sampler's end", func() { <-m.done })
			within(t, "a later Close", func() { m.Close() })
			n := m.State().Windows
			time.Sleep(5 * MinWindow)
			if got := m.State().Windows; got != n {
				t.Errorf("still sampling after Close: %d windows, then %d", n, got)
			}
		})
	}
}

// TestCloseDuringBlockedCallback: Close from another goroutine returns
// while an OnChange function is blocked, and no function is called for a
// later window.
func TestCloseDuringBlockedCallback(t *testing.T) {
	ready := make(chan struct{})
	m, err := newWith(Options{Window: MinWindow}, gated(ready, winHealthy, winOverGoal, winHealthy, winOverGoal))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var calls int
	m.OnChange(func(Change) {
		calls++
		if calls == 1 {
			close(entered)
			<-release
		}
	})
	close(ready)
	within(t, "the first change", func() { <-entered })
	within(t, "Close while a callback is blocked", func() { m.Close() })
	close(release)
	within(t, "the sampler's end", func() { <-m.done })
	if calls != 1 {
		t.Errorf("%d calls, want 1 (none after Close)", calls)
	}
}

// slowWriter is a ResponseWriter whose Write blocks until released, as a
// client that does not read does.
type slowWriter struct {
	*httptest.ResponseRecorder
	writing, release chan struct{}
}

func (w slowWriter) Write(b []byte) (int, error) {
	close(w.writing)
	<-w.release
	return w.ResponseRecorder.Write(b)
}

// TestHandlerSlowReader: a client slow to read its body holds no
// MaxInFlight slot: with one slot, a second request is served while the
// first is still being written.
func TestHandlerSlowReader(t *testing.T) {
	m := newMonitor(t, Options{Window: time.Hour, MaxInFlight: 1})
	h := m.Handler()
	slow := slowWriter{httptest.NewRecorder(), make(chan struct{}), make(chan struct{})}
	go h.ServeHTTP(slow, httptest.NewRequest("GET", "/?format=json", nil))
	within(t, "the slow response's write", func() { <-slow.writing })
	defer close(slow.release)
	for _, target := range []string{"/?format=json", "/"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("%s while a slow client reads: %d %s", target, rec.Code, rec.Body)
		}
	}
}

// TestExitNeverSucceeds: Exit(0), and a code the OS would truncate to 0,
// exit with ExitFailure and say so, so that a supervisor's restart on
// failure fires.
func TestExitNeverSucceeds(t *testing.T) {
	if c := os.Getenv("GCHEALTH_TEST_EXIT_CODE"); c != "" {
		code := map[string]int{"0": 0, "256": 256, "-1": -1}[c]
		Exit(code)(Change{To: Failing, Causes: []Cause{CauseMemlimitSpiral}})
		return
	}
	for _, c := range []string{"0", "256", "-1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExitNeverSucceeds$")
		cmd.Env = append(os.Environ(), "GCHEALTH_TEST_EXIT_CODE="+c)
		out, err := cmd.CombinedOutput()
		code := 0
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		if code != ExitFailure || !strings.Contains(string(out), "Exit was given "+c) {
			t.Errorf("Exit(%s): exit code %d (%v), output %q; want %d", c, code, err, out, ExitFailure)
		}
	}
}
