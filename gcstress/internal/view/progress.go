// The progress of a gcstress run as it goes, on the writer it is given
// (the command's stderr, so the report on stdout stays clean): on a
// terminal one bar per scenario with keys, MB/s, GC share and health;
// otherwise a plain line per scenario every few seconds and one when it
// ends, with warnings for output a child printed outside its stream.

package view

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/workload"
	"golang.org/x/term"
)

// Bar shows the run as it goes: on a terminal, one mpb bar per
// scenario with keys, MB/s, GC % and health; otherwise a plain line per
// scenario every few seconds and one when it ends. Progress goes to the
// writer given (stderr), so the report on stdout stays clean. Methods are
// called from the runner's goroutine; the bar's decorators read a snapshot
// under a mutex.
type Bar struct {
	w     io.Writer
	n     int
	tty   bool
	p     *mpb.Progress
	bar   *mpb.Bar
	cur   *barStatus // the current scenario's status text
	last  time.Time
	i     int
	label string
}

// plainEvery is how often plain progress lines are printed.
const plainEvery = 5 * time.Second

// New shows a run of n planned scenarios on w. Scenarios past the n-th (a
// capacity search's steps, whose number is not known in advance) are
// numbered without a total: "[step 21]".
func New(w io.Writer, n int) *Bar {
	pr := &Bar{w: w, n: n}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		pr.tty = true
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(200*time.Millisecond))
	}
	return pr
}

// Start shows scenario s, the i-th (from 0), starting.
func (pr *Bar) Start(i int, s results.Scenario) {
	pr.i, pr.label, pr.last = i, fmt.Sprintf("%s %-16s", counter(i, pr.n), escape.Terminal(s.Name)), time.Now()
	st := &barStatus{s: "starting"}
	pr.cur = st
	if !pr.tty {
		fmt.Fprintf(pr.w, "%s start: %s\n", pr.label, escape.Terminal(s.Describe()))
		return
	}
	pr.bar = pr.p.AddBar(1000,
		mpb.PrependDecorators(decor.Name(pr.label), decor.Percentage(decor.WCSyncSpace)),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return st.get() })),
	)
}

// counter is the i-th (from 0) scenario's counter: "[3/20]" within the n
// planned, "[step 21]" past them, whose total is unknown.
func counter(i, n int) string {
	if i < n {
		return fmt.Sprintf("[%d/%d]", i+1, n)
	}
	return fmt.Sprintf("[step %d]", i+1)
}

func (pr *Bar) setStatus(s string) { pr.cur.set(s) }

// barStatus is one bar's status text, written by the runner's goroutine and
// read by mpb's renderer.
type barStatus struct {
	mu sync.Mutex
	s  string
}

func (b *barStatus) set(s string) { b.mu.Lock(); b.s = s; b.mu.Unlock() }
func (b *barStatus) get() string  { b.mu.Lock(); defer b.mu.Unlock(); return b.s }

func statusLine(l results.Sample, v results.Health) string {
	cls := results.Healthy
	gc := 0.0
	if n := len(v.Windows); n > 0 {
		cls, gc = v.Windows[n-1].Class, v.Windows[n-1].GCPct
	}
	if v.Class == results.Failed {
		cls = results.Failed
	}
	return fmt.Sprintf("%s keys %6.1f MB/s GC %4.1f%% heap %s RSS %s %s",
		workload.FormatCount(roundCount(l.Keys)), l.MBps, gc, results.MiB(l.HeapObjects), results.MiB(l.RSS), cls)
}

// roundCount keeps three significant figures so FormatCount prints 12.3M
// style numbers compactly.
func roundCount(n int64) int64 {
	switch {
	case n >= 1e9:
		return n / 1e6 * 1e6
	case n >= 1e6:
		return n / 1e3 * 1e3
	}
	return n
}

// Line shows a window line of s with the verdict so far.
func (pr *Bar) Line(s results.Scenario, l results.Sample, v results.Health) {
	if l.Type != results.SampleWindow {
		return
	}
	st := statusLine(l, v)
	pr.setStatus(st)
	if pr.tty {
		pr.bar.SetCurrent(int64(l.Progress * 1000))
		return
	}
	if time.Since(pr.last) >= plainEvery {
		pr.last = time.Now()
		fmt.Fprintf(pr.w, "%s %3.0f%% %s\n", pr.label, 100*l.Progress, st)
	}
}

// Outcome is how a scenario ended, in a few words: its MB/s and class
// ("12.3 elevated"), or its failure ("failed at 65% (RSS cap)", which
// names the class already).
func Outcome(r results.Result) string {
	if r.Verdict.Class == results.Failed {
		return CellText(r)
	}
	return CellText(r) + " " + string(r.Verdict.Class)
}

// StepOutcome is a capacity step's outcome: its MB/s or failure and the
// step's own health, which the search judged (a step can fail on latency
// or rate while its collector was healthy).
func StepOutcome(r results.Result, st results.CapacityStep) string {
	if st.Healthy {
		return CellText(r) + " step healthy"
	}
	return fmt.Sprintf("%s step unhealthy (%s)", CellText(r), st.Limit)
}

// Done shows how a scenario ended, and warning lines when its child
// printed outside its stream (ForeignOutput.Warning) or its stream had a
// fault (results.Result.StreamErr).
func (pr *Bar) Done(r results.Result) {
	why := ""
	if r.Verdict.Class != results.Healthy {
		why = r.Verdict.Why
	}
	pr.done(r, Outcome(r), why)
}

// DoneStep is Done for a capacity step, with the step's own health.
func (pr *Bar) DoneStep(r results.Result, st results.CapacityStep) {
	pr.done(r, StepOutcome(r, st), st.Why)
}

// done shows outcome (and why, when not empty) for r.
func (pr *Bar) done(r results.Result, outcome, why string) {
	msg := escape.Terminal(outcome)
	if why != "" {
		msg += ": " + escape.Terminal(why)
	}
	warn := r.Foreign.Warning(r.Scenario.Name)
	if r.StreamErr != "" {
		warn = strings.TrimPrefix(warn+"\n", "\n") + fmt.Sprintf("warning: %s: %s", r.Scenario.Name, r.StreamErr)
	}
	warn = escape.TerminalText(warn) // names and errors are the user's
	if !pr.tty {
		fmt.Fprintf(pr.w, "%s done in %.1f s: %s\n", pr.label, r.Wall, msg)
		if warn != "" {
			fmt.Fprintln(pr.w, warn)
		}
		return
	}
	if warn != "" {
		fmt.Fprintln(pr.p, warn) // above the bars
	}
	pr.setStatus(escape.Terminal(fmt.Sprintf("%s in %.0f s", outcome, r.Wall)))
	if r.End != nil && r.End.Reason == results.StopKeys && r.Verdict.Class != results.Failed {
		pr.bar.SetTotal(-1, true)
	} else {
		pr.bar.Abort(false) // stays where the scenario stopped
	}
}

// Close waits for the bars to be drawn.
func (pr *Bar) Close() {
	if pr.p != nil {
		pr.p.Wait()
	}
}
