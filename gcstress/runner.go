package gcstress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Runner starts one child process per scenario and collects its stream.
//
// Lifetime: a Runner runs one scenario at a time (Run is not safe for
// concurrent use); its fields are set before the first Run. Samples, when
// set, receives every line a child writes, as it arrives (one Write per
// line), so a child that is killed leaves everything it streamed.
type Runner struct {
	// Exe and Args start a child; Exe "" means os.Executable() with no
	// args. The child must hand a process with ChildEnv set to RunChild.
	Exe  string
	Args []string
	// Samples receives each JSON line (with its newline). May be nil.
	Samples io.Writer
	// OnLine is called for each decoded line with the classification of
	// the windows so far. May be nil. Called from Run's goroutine.
	OnLine func(s Scenario, line Sample, v Verdict)
	// StopOnFail stops a child (SIGTERM) once its stream is classified failed.
	StopOnFail bool
	// Grace is how long a child may take to exit after SIGINT/SIGTERM before
	// it is killed; 0 means 5 s.
	Grace time.Duration
	// ParentCapSlack: the parent kills a child whose RSS passes
	// RSSCap*(1+slack) (the child stops itself at RSSCap); 0 means 0.10.
	ParentCapSlack float64
}

// Result is what a scenario produced. It is a plain value.
type Result struct {
	Scenario Scenario `json:"scenario"`
	Windows  []Sample `json:"-"` // window lines, in order (in samples.jsonl)
	End      *Sample  `json:"end,omitempty"`
	// Last is the last window or end line seen: the progress of a child
	// that died.
	Last    Sample     `json:"last"`
	Flight  string     `json:"flight,omitempty"` // flight-recorder dump, if written
	Exit    Exit       `json:"exit"`
	Stopped StopReason `json:"stopped,omitempty"` // StopFailed, StopInterrupted or StopHung when the parent stopped it
	Stderr  string     `json:"stderr,omitempty"`  // the tail of the child's stderr
	Verdict Verdict    `json:"verdict"`
	Wall    float64    `json:"wall_s"`
	// Machine is what other processes and steal took while it ran.
	Machine Machine `json:"machine"`
	// Account is the explain package's account of the captured profiles
	// (markdown), when the scenario captured any.
	Account  string `json:"account,omitempty"`
	Headline string `json:"headline,omitempty"`
}

// Run runs scenario s in a child process and returns its Result. The error
// is non-nil only when the child could not be started (a tool failure);
// a child that dies, is killed or fails is a Result with Verdict Failed.
// Cancelling ctx sends the child SIGINT (then SIGKILL after Grace) and
// returns what it streamed, with Stopped StopInterrupted.
func (r *Runner) Run(ctx context.Context, s Scenario) (Result, error) {
	res := Result{Scenario: s}
	meter := startMachineMeter()
	p, err := r.start(s)
	if err != nil {
		return res, err
	}
	go p.watch(ctx)
	p.read(&res)
	waitErr := p.cmd.Wait()
	close(p.done)
	p.finish(&res, waitErr)
	var child time.Duration
	if ps := p.cmd.ProcessState; ps != nil {
		child = ps.UserTime() + ps.SystemTime()
	}
	res.Machine = meter.stop(child)
	return res, nil
}

// childProc is one scenario's child process as the parent sees it. Run's
// goroutine reads its stream; a watcher goroutine (watch) stops or kills it.
// stopped and exit are written by both, under mu.
type childProc struct {
	r        *Runner
	s        Scenario
	cmd      *exec.Cmd
	stdout   io.Reader
	stderr   *tailBuffer
	t0       time.Time
	done     chan struct{} // closed once the child was waited for
	killOnce sync.Once
	failStop bool // StopOnFail's SIGTERM was sent (Run's goroutine only)

	mu      sync.Mutex
	stopped StopReason
	exit    Exit
}

// command builds the child's command: the scenario in ChildEnv, its own
// GOGC and GOMEMLIMIT, its own process group (a terminal's Ctrl-C reaches
// the parent only, which forwards it) and SIGKILL when the parent dies.
func (r *Runner) command(s Scenario) (*exec.Cmd, error) {
	exe, args := r.Exe, r.Args
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("gcstress: find own executable: %w", err)
		}
	}
	spec, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), s.env()...)
	cmd.Env = append(cmd.Env, ChildEnv+"="+string(spec))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// start starts scenario s's child with its stdout piped and the tail of
// its stderr kept.
func (r *Runner) start(s Scenario) (*childProc, error) {
	cmd, err := r.command(s)
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	p := &childProc{r: r, s: s, cmd: cmd, stdout: stdout, stderr: &tailBuffer{max: 16 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	p.t0 = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gcstress: start child for %s: %w", s.Name, err)
	}
	return p, nil
}

// stop records why the parent stopped the child (the first reason wins)
// and sends it sig.
func (p *childProc) stop(sig syscall.Signal, why StopReason) {
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

// watch stops the child when ctx is cancelled (SIGINT, then SIGKILL after
// the grace period), kills it when its RSS passes the parent's cap, and
// kills a child still running two minutes past its run-time cap (hung).
// It returns when the child was waited for.
func (p *childProc) watch(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var deadline <-chan time.Time
	if p.s.Duration > 0 {
		deadline = time.After(p.s.Duration + 2*time.Minute)
	}
	for {
		select {
		case <-p.done:
			return
		case <-ctx.Done():
			p.stop(syscall.SIGINT, StopInterrupted)
			p.killLater()
			return
		case <-deadline:
			p.stop(syscall.SIGKILL, StopHung)
			return
		case <-tick.C:
			if p.killOverCap() {
				return
			}
		}
	}
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
	rss := readPidRSS(p.cmd.Process.Pid)
	if rss <= uint64(float64(p.s.RSSCap)*(1+slack)) {
		return false
	}
	p.mu.Lock()
	p.exit.RSSCap = true
	p.exit.Message = fmt.Sprintf("killed by the parent at RSS %s > cap %s", mib(rss), mib(uint64(p.s.RSSCap)))
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
	return true
}

// read copies each line of the child's stdout to Runner.Samples as it
// arrives, adds the decoded lines to res, and reports each to
// Runner.OnLine with the classification so far; with StopOnFail it stops
// the child once that classification is failed. It returns at EOF.
func (p *childProc) read(res *Result) {
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		b := sc.Bytes()
		if p.r.Samples != nil {
			line := make([]byte, len(b)+1)
			copy(line, b)
			line[len(b)] = '\n'
			_, _ = p.r.Samples.Write(line)
		}
		var smp Sample
		if err := json.Unmarshal(b, &smp); err != nil {
			continue // not ours: keep it on disk, ignore it here
		}
		res.add(smp)
		v := Classify(res.Windows, Exit{}, p.s.Thresholds)
		if p.r.OnLine != nil {
			p.r.OnLine(p.s, smp, v)
		}
		if p.r.StopOnFail && v.Class == Failed && !p.failStop {
			p.failStop = true
			p.stop(syscall.SIGTERM, StopFailed)
			p.killLater()
		}
	}
}

// add records one line of a scenario's stream in its Result.
func (res *Result) add(l Sample) {
	switch l.Type {
	case SampleWindow:
		res.Windows = append(res.Windows, l)
		res.Last = l
	case SampleEnd:
		e := l
		res.End, res.Last = &e, l
	case SampleFlight:
		res.Flight = l.Flight
	}
}

// finish completes res once the child exited: wall time, stderr, how it
// ended (from its end line, or from waitErr when it left none) and the
// final verdict.
func (p *childProc) finish(res *Result, waitErr error) {
	res.Wall = time.Since(p.t0).Seconds()
	res.Stderr = p.stderr.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	res.Stopped, res.Exit = p.stopped, p.exit
	switch {
	case res.End == nil:
		res.Exit.Died = !res.Exit.RSSCap
		if res.Exit.Message == "" {
			res.Exit.Message = exitMessage(waitErr)
		}
	case res.End.Reason == StopRSSCap:
		res.Exit.RSSCap = true
		res.Exit.Message = fmt.Sprintf("stopped itself at RSS %s > cap %s", mib(res.End.PeakRSS), mib(uint64(p.s.RSSCap)))
	case res.End.Reason == StopError:
		res.Exit.Died = true
		res.Exit.Message = "error: " + res.End.Err
	}
	res.Verdict = Classify(res.Windows, res.Exit, p.s.Thresholds)
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

// tailBuffer keeps the last max bytes written to it. Safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
