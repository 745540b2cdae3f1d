package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"

	"github.com/writegc/writegc/gcstress/results"
)

// childProc is one scenario's child process as the parent sees it. Run's
// goroutine reads its stream; a watcher goroutine (watch) stops or kills it.
// stopped and exit are written by both, under mu; progressAt is written by
// the reader and read by the watcher.
type childProc struct {
	r        *Runner
	s        results.Scenario
	cmd      *exec.Cmd
	stream   *os.File // the read end of the child's stream
	stdout   *Capture // what the child prints on stdout (foreign)
	stderr   *Capture
	tmp      string // the child's TMPDIR, removed once it exited
	t0       time.Time
	done     chan struct{} // closed once the child was waited for
	killOnce sync.Once
	failStop bool   // StopOnFail's SIGTERM was sent (Run's goroutine only)
	lastKeys int64  // keys of the last window read (Run's goroutine only)
	line     []byte // Samples' line buffer (Run's goroutine only)
	writeErr error  // the first failed write to Samples (Run's goroutine only)
	streamEr error  // the first fault of the stream (Run's goroutine only)

	progressAt atomic.Int64 // UnixNano of the last record that showed progress

	mu      sync.Mutex
	stopped results.StopReason
	exit    results.Exit
}

// unblockRead closes the stream's read end pipeDelay after the child
// exited if the reader has not reached its end by then (a process that
// inherited the descriptor despite close-on-exec holds it open).
func (p *childProc) unblockRead(readDone <-chan struct{}) {
	select {
	case <-readDone:
		return
	case <-p.done:
	}
	select {
	case <-readDone:
	case <-time.After(pipeDelay):
		_ = p.stream.Close()
	}
}

// stop records why the parent stopped the child (the first reason wins)
// and sends it sig.
func (p *childProc) stop(sig syscall.Signal, why results.StopReason) {
	p.mu.Lock()
	if p.stopped == "" {
		p.stopped = why
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(sig)
}

// killLater kills the child if it has not exited after the grace period.
func (p *childProc) killLater() {
	grace := p.r.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	p.killOnce.Do(func() {
		go func() {
			select {
			case <-p.done:
			case <-time.After(grace):
				_ = p.cmd.Process.Kill()
			}
		}()
	})
}

// stallTimeout is the watchdog's timeout: Scenario.StallTimeout, at least
// three windows, for a scenario with no run-time cap and with windows; 0
// (no watchdog) otherwise.
func (p *childProc) stallTimeout() time.Duration {
	if p.s.Duration > 0 || p.s.StallTimeout <= 0 || p.s.Window <= 0 {
		return 0
	}
	return max(p.s.StallTimeout, 3*p.s.Window)
}

// watch stops the child when ctx is cancelled (SIGINT, then SIGKILL after
// the grace period), kills it when its RSS passes the parent's cap, kills
// a child still running hangAfter past its run-time cap (hung), and
// stops one that streamed no progress for its stall timeout (SIGTERM,
// then SIGKILL after the grace period). It returns when the child was
// waited for, or once it stopped the child.
func (p *childProc) watch(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var deadline <-chan time.Time
	if p.s.Duration > 0 {
		deadline = time.After(p.s.Duration + p.hangAfter())
	}
	stall := p.stallTimeout()
	for {
		select {
		case <-p.done:
			return
		case <-ctx.Done():
			p.stop(syscall.SIGINT, results.StopInterrupted)
			p.killLater()
			return
		case <-deadline:
			p.stop(syscall.SIGKILL, results.StopHung)
			return
		case <-tick.C:
			if p.killOverCap() {
				return
			}
			if stall > 0 && time.Since(time.Unix(0, p.progressAt.Load())) > stall {
				p.stop(syscall.SIGTERM, results.StopStalled)
				p.killLater()
				return
			}
		}
	}
}

// hangAfter is Runner.HangAfter, DefaultHangAfter when 0.
func (p *childProc) hangAfter() time.Duration {
	if p.r.HangAfter > 0 {
		return p.r.HangAfter
	}
	return DefaultHangAfter
}

// killOverCap kills the child when its RSS passes RSSCap by more than the
// Runner's ParentCapSlack, and says whether it did.
func (p *childProc) killOverCap() bool {
	if p.s.RSSCap <= 0 {
		return false
	}
	slack := p.r.ParentCapSlack
	if slack == 0 {
		slack = 0.10
	}
	rss := proto.ReadPidRSS(p.cmd.Process.Pid)
	if rss <= uint64(float64(p.s.RSSCap)*(1+slack)) {
		return false
	}
	p.mu.Lock()
	p.exit.RSSCap = true
	p.exit.Message = fmt.Sprintf("killed by the parent at RSS %s > cap %s", results.MiB(rss), results.MiB(uint64(p.s.RSSCap)))
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
	return true
}

// read copies each record of the child's stream to Runner.Samples as it
// arrives, adds the decoded records to res, and reports each to
// Runner.OnLine with the classification so far; with StopOnFail it stops
// the child once that classification is failed. It returns at the
// stream's end, or when the stream cannot be read.
func (p *childProc) read(res *results.Result) {
	rr := NewReader(p.stream, results.MaxRecord, ErrRecordTooLong, proto.ErrStream)
	for {
		b, err := rr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return
		case errors.Is(err, ErrRecordTooLong):
			p.noteStreamErr(err)
			continue
		case err != nil:
			p.noteStreamErr(err)
			p.killLater() // a child left writing to an unread pipe would block
			return
		}
		p.save(b)
		var smp results.Sample
		if err := json.Unmarshal(b, &smp); err != nil {
			continue // not a record: kept on disk, ignored here
		}
		p.noteProgress(smp)
		res.Add(smp)
		v := results.ClassifyScenario(p.s, res.Windows, results.Exit{}, p.s.Thresholds)
		if p.r.OnLine != nil {
			p.r.OnLine(p.s, smp, v)
		}
		if p.r.StopOnFail && v.Class == results.Failed && !p.failStop {
			p.failStop = true
			p.stop(syscall.SIGTERM, results.StopFailed)
			p.killLater()
		}
	}
}

// noteProgress restarts the stall watchdog's clock on a record that shows
// progress: a window with more keys than the last, or any other record.
func (p *childProc) noteProgress(smp results.Sample) {
	if smp.Type == results.SampleWindow {
		if smp.Keys <= p.lastKeys {
			return
		}
		p.lastKeys = smp.Keys
	}
	p.progressAt.Store(time.Now().UnixNano())
}

func (p *childProc) noteStreamErr(err error) {
	if p.streamEr == nil {
		p.streamEr = err
	}
}

// save writes one record and its newline to Runner.Samples. The first
// failure is kept (writeErr), stops the child and ends the saving: the
// run has failed as a tool.
func (p *childProc) save(b []byte) {
	if p.r.Samples == nil || p.writeErr != nil {
		return
	}
	p.line = append(append(p.line[:0], b...), '\n')
	if _, err := p.r.Samples.Write(p.line); err != nil {
		p.writeErr = fmt.Errorf("%w: write %s: %w", proto.ErrStream, writerName(p.r.Samples), err)
		select {
		case <-p.done:
		default:
			p.stop(syscall.SIGTERM, results.StopInterrupted)
			p.killLater()
		}
	}
}

// writerName is w's file name when it has one.
func writerName(w io.Writer) string {
	if n, ok := w.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "the samples stream"
}

// exitLine is the parent's record of how the child ended (SampleExit).
func (p *childProc) exitLine(res results.Result) []byte {
	e := res.Exit
	b, err := json.Marshal(results.Sample{Type: results.SampleExit, Scenario: p.s.Name, T: res.Wall, Reason: res.Stopped, Exit: &e})
	if err != nil {
		panic(fmt.Sprintf("gcstress: exit line: %v", err)) // a Sample always marshals
	}
	return b
}

// finish completes res once the child exited: wall time, stderr, how it
// ended (from its end line, or from waitErr when it left none; a stall or
// an interruption the parent caused takes precedence) and the final
// verdict.
func (p *childProc) finish(res *results.Result, waitErr error) {
	res.Wall = time.Since(p.t0).Seconds()
	res.Stderr = p.stderr.Tail(stderrTail)
	if p.streamEr != nil {
		res.StreamErr = p.streamEr.Error()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	res.Stopped, res.Exit = p.stopped, p.exit
	switch {
	case res.Stopped == results.StopHung && res.End == nil && !res.Exit.RSSCap:
		// Not a death: the parent killed a child whose load never ended.
		res.Exit.Died, res.Exit.Stalled = true, true
		res.Exit.Message = fmt.Sprintf("killed by gcstress: no exit %v past its %v run-time cap (a Put or Get hung)", p.hangAfter(), p.s.Duration)
	case res.Stopped == results.StopStalled && !res.Exit.RSSCap:
		res.Exit.Died, res.Exit.Stalled = true, true
		res.Exit.Message = fmt.Sprintf("stalled: no progress for %v, stopped by the parent's watchdog (-stall-timeout)", p.stallTimeout())
		if res.End == nil {
			res.Exit.Message += "; " + exitMessage(waitErr)
		}
	case res.End == nil && res.Stopped == results.StopInterrupted && !res.Exit.RSSCap:
		res.Exit.Interrupted = true
		res.Exit.Message = "interrupted: " + exitMessage(waitErr)
	case res.End == nil:
		res.Exit.Died = !res.Exit.RSSCap
		if res.Exit.Message == "" {
			res.Exit.Message = exitMessage(waitErr)
		}
		if res.StreamErr != "" {
			res.Exit.Message += "; " + res.StreamErr
		}
	default:
		if e, ok := results.ExitOfEnd(res.End); ok {
			res.Exit.RSSCap, res.Exit.Died = res.Exit.RSSCap || e.RSSCap, res.Exit.Died || e.Died
			res.Exit.Interrupted = e.Interrupted
			res.Exit.Message = e.Message
			if e.RSSCap {
				res.Exit.Message = fmt.Sprintf("stopped itself at RSS %s > cap %s", results.MiB(res.End.PeakRSS), results.MiB(uint64(p.s.RSSCap)))
			}
		}
	}
	res.Verdict = results.ClassifyScenario(p.s, res.Windows, res.Exit, p.s.Thresholds)
}

func exitMessage(err error) string {
	if err == nil {
		return "exited without an end record"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal: " + ws.Signal().String()
		}
	}
	return err.Error()
}
