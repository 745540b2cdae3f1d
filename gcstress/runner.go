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
	// args. The child must dispatch on ChildEnv (Main does).
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
	// Account is the explain package's account of the captured profiles
	// (markdown), when the scenario captured any.
	Account  string `json:"account,omitempty"`
	Headline string `json:"headline,omitempty"`
}

// Run runs scenario s in a child process and returns its Result. The error
// is non-nil only when the child could not be started (a tool failure);
// a child that dies, is killed or fails is a Result with Verdict Failed.
// Cancelling ctx sends the child SIGINT (then SIGKILL after Grace) and
// returns what it streamed, with Stopped "interrupted".
func (r *Runner) Run(ctx context.Context, s Scenario) (Result, error) {
	res := Result{Scenario: s}
	exe, args := r.Exe, r.Args
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return res, fmt.Errorf("gcstress: find own executable: %w", err)
		}
	}
	spec, err := json.Marshal(s)
	if err != nil {
		return res, fmt.Errorf("gcstress: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), s.env()...)
	cmd.Env = append(cmd.Env, ChildEnv+"="+string(spec))
	// Own process group: a terminal's Ctrl-C reaches the parent only, which
	// forwards it; Pdeathsig: the child never outlives the parent.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, fmt.Errorf("gcstress: %w", err)
	}
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("gcstress: start child for %s: %w", s.Name, err)
	}
	pid := cmd.Process.Pid

	var mu sync.Mutex // guards res.Stopped, res.Exit.RSSCap/Message set by watchers
	stop := func(sig syscall.Signal, why StopReason) {
		mu.Lock()
		if res.Stopped == "" {
			res.Stopped = why
		}
		mu.Unlock()
		_ = cmd.Process.Signal(sig)
	}
	grace := r.Grace
	if grace == 0 {
		grace = 5 * time.Second
	}
	done := make(chan struct{})
	var killOnce sync.Once
	killLater := func() {
		killOnce.Do(func() {
			go func() {
				select {
				case <-done:
				case <-time.After(grace):
					_ = cmd.Process.Kill()
				}
			}()
		})
	}
	// Watchers: ctx, the hard RSS cap from outside, a hung child.
	go func() {
		slack := r.ParentCapSlack
		if slack == 0 {
			slack = 0.10
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var deadline <-chan time.Time
		if s.Duration > 0 {
			deadline = time.After(s.Duration + 2*time.Minute)
		}
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				stop(syscall.SIGINT, "interrupted")
				killLater()
				return
			case <-deadline:
				stop(syscall.SIGKILL, "hung")
				return
			case <-tick.C:
				if s.RSSCap > 0 {
					if rss := readPidRSS(pid); rss > uint64(float64(s.RSSCap)*(1+slack)) {
						mu.Lock()
						res.Exit.RSSCap = true
						res.Exit.Message = fmt.Sprintf("killed by the parent at RSS %s > cap %s", mib(rss), mib(uint64(s.RSSCap)))
						mu.Unlock()
						_ = cmd.Process.Kill()
						return
					}
				}
			}
		}
	}()

	var lines []Sample
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	failStopSent := false
	for sc.Scan() {
		b := sc.Bytes()
		if r.Samples != nil {
			line := make([]byte, len(b)+1)
			copy(line, b)
			line[len(b)] = '\n'
			_, _ = r.Samples.Write(line)
		}
		var smp Sample
		if err := json.Unmarshal(b, &smp); err != nil {
			continue // not ours: keep it on disk, ignore it here
		}
		switch smp.Type {
		case "window":
			res.Windows = append(res.Windows, smp)
			res.Last = smp
		case "end":
			e := smp
			res.End = &e
			res.Last = smp
		case "flight":
			res.Flight = smp.Flight
		}
		lines = append(lines, smp)
		v := Classify(res.Windows, Exit{}, s.Thresholds)
		if r.OnLine != nil {
			r.OnLine(s, smp, v)
		}
		if r.StopOnFail && v.Class == Failed && !failStopSent {
			failStopSent = true
			stop(syscall.SIGTERM, "failed")
			killLater()
		}
	}
	waitErr := cmd.Wait()
	close(done)
	res.Wall = time.Since(t0).Seconds()
	res.Stderr = stderr.String()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case res.End == nil:
		res.Exit.Died = !res.Exit.RSSCap
		if res.Exit.Message == "" {
			res.Exit.Message = exitMessage(waitErr)
		}
	case res.End.Reason == "rss-cap":
		res.Exit.RSSCap = true
		res.Exit.Message = fmt.Sprintf("stopped itself at RSS %s > cap %s", mib(res.End.PeakRSS), mib(uint64(s.RSSCap)))
	case res.End.Reason == "error":
		res.Exit.Died = true
		res.Exit.Message = "error: " + res.End.Err
	}
	res.Verdict = Classify(res.Windows, res.Exit, s.Thresholds)
	return res, nil
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
