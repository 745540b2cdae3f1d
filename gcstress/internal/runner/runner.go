package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"

	"github.com/writegc/writegc/gcstress/results"
)

// The child's stream runs on a pipe of its own, not on the child's
// stdout (gcstress's StreamEnv says why); these name it and bound what the
// parent keeps of the child's own output.
const (
	// ChildEnv is the environment variable that turns the binary into a
	// scenario's child: it holds the Scenario as JSON.
	ChildEnv = "WRITEGC_GCSTRESS_CHILD"
	// StreamEnv is the environment variable naming the child's stream
	// descriptor.
	StreamEnv = "WRITEGC_GCSTRESS_STREAM"
	// StreamFD is the descriptor the parent passes: ExtraFiles[0].
	StreamFD = 3
	// CaptureKeep is how much of each end of a child's stdout and stderr
	// the parent keeps.
	CaptureKeep = 64 << 10
	// ChildStdoutFile and ChildStderrFile, in the scenario's folder, hold
	// what the child printed outside its stream.
	ChildStdoutFile = "child-stdout.txt"
	ChildStderrFile = "child-stderr.txt"
)

// ErrRecordTooLong is a record of the stream longer than
// results.MaxRecord: skipped, and the scenario names the limit.
var ErrRecordTooLong = fmt.Errorf("%w: a record longer than the %d MiB limit (MaxRecord) was skipped", proto.ErrStream, results.MaxRecord>>20)

// Runner starts one child process per scenario and collects its stream.
//
// Lifetime: a Runner runs one scenario at a time (Run is not safe for
// concurrent use); its fields are set before the first Run. Samples, when
// set, receives every record a child streams, as it arrives (one Write per
// line), so a child that is killed leaves everything it streamed; after
// the child exited, Run appends the parent's exit line (SampleExit).
type Runner struct {
	// Exe and Args start a child; Exe "" means os.Executable() with no
	// args. The child must hand a process with ChildEnv set to RunChild.
	Exe  string
	Args []string
	// Samples receives each JSON line (with its newline). May be nil. A
	// failed Write stops the child, and Run returns an error wrapping
	// ErrStream that names the file (Samples' Name method, when it has one).
	Samples io.Writer
	// OnLine is called for each decoded line with the classification of
	// the windows so far. May be nil. Called from Run's goroutine.
	OnLine func(s results.Scenario, line results.Sample, v results.Health)
	// StopOnFail stops a child (SIGTERM) once its stream is classified failed.
	StopOnFail bool
	// Grace is how long a child may take to exit after SIGINT/SIGTERM before
	// it is killed; 0 means 5 s.
	Grace time.Duration
	// ParentCapSlack: the parent kills a child whose RSS passes
	// RSSCap*(1+slack) (the child stops itself at RSSCap); 0 means 0.10.
	ParentCapSlack float64
	// ExeFor, when set, gives the binary (run without Args) and the
	// environment additions of a scenario that names a build environment
	// (Scenario.BuildEnv); ok false: Exe and Args as for any scenario.
	ExeFor func(s results.Scenario) (exe string, env []string, ok bool)
	// HangAfter is how long past its run-time cap a child may take to
	// exit before the parent kills it as hung (a Put or Get that never
	// returns); 0 means DefaultHangAfter.
	HangAfter time.Duration
}

// DefaultHangAfter is Runner.HangAfter's default.
const DefaultHangAfter = 2 * time.Minute

// TempPrefix names each child's private temporary folder (its TMPDIR,
// under the parent's), which the parent removes once the child exited,
// however it ended: a killed child leaves no read trace or other
// temporary file behind.
const TempPrefix = "gcstress-child-"

// pipeDelay is how long the parent waits, once a child exited, for the
// child's stream, stdout and stderr to reach their end: a process the
// engine started may hold stdout or stderr open, and must not hold up the
// run.
const pipeDelay = 2 * time.Second

// stderrTail is how much of a child's stderr Result.Stderr keeps.
const stderrTail = 16 << 10

// Run runs scenario s in a child process and returns its Result. The error
// is non-nil only for a tool failure: the child could not be started, or
// a write to Samples or to the scenario's capture files failed (wrapping
// ErrStream and naming the file; the Result is then what was read). A
// child that dies, is killed or fails is a Result with Verdict Failed; one
// that streams no progress for its StallTimeout is stopped (SIGTERM, then
// SIGKILL after Grace) and fails as StopStalled. Cancelling ctx sends the
// child SIGINT (then SIGKILL after Grace) and returns what it streamed,
// with Stopped StopInterrupted; a child that left no end record is then
// Interrupted, not failed.
func (r *Runner) Run(ctx context.Context, s results.Scenario) (results.Result, error) {
	res := results.Result{Scenario: s}
	meter := proto.StartMeter()
	p, err := r.start(s)
	if err != nil {
		return res, err
	}
	go p.watch(ctx)
	waited := make(chan error, 1)
	go func() {
		err := p.cmd.Wait()
		close(p.done)
		waited <- err
	}()
	readDone := make(chan struct{})
	go p.unblockRead(readDone)
	p.read(&res)
	close(readDone)
	waitErr := <-waited
	_ = p.stream.Close() // the read end; nothing was written through it
	p.finish(&res, waitErr)
	_ = os.RemoveAll(p.tmp) // the child is gone: nothing writes there any more
	var child time.Duration
	if ps := p.cmd.ProcessState; ps != nil {
		child = ps.UserTime() + ps.SystemTime()
	}
	res.Machine = meter.Stop(child)
	p.save(p.exitLine(res))
	exitedOK := p.cmd.ProcessState != nil && p.cmd.ProcessState.Success()
	foreign, ferr := keepForeign(s.Dir, p.stdout, p.stderr, exitedOK)
	res.Foreign = foreign
	return res, errors.Join(p.writeErr, ferr)
}

// command builds the child's command: the scenario in ChildEnv, its own
// GOGC and GOMEMLIMIT, its stream's descriptor in StreamEnv, tmp as its
// TMPDIR (the last value of a name wins), its own process
// group (a terminal's Ctrl-C reaches the parent only, which forwards it)
// and SIGKILL when the parent dies.
func (r *Runner) command(s results.Scenario, tmp string) (*exec.Cmd, error) {
	exe, args := r.Exe, r.Args
	var buildEnv []string
	if r.ExeFor != nil && s.BuildEnv != "" {
		if e, env, ok := r.ExeFor(s); ok {
			exe, args, buildEnv = e, nil, env
		}
	}
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
	cmd.Env = append(append(os.Environ(), buildEnv...), s.Env()...)
	cmd.Env = append(cmd.Env, ChildEnv+"="+string(spec), fmt.Sprintf("%s=%d", StreamEnv, StreamFD), "TMPDIR="+tmp)
	cmd.SysProcAttr = proto.ChildSysProcAttr()
	cmd.WaitDelay = pipeDelay
	return cmd, nil
}

// start starts scenario s's child with its stream on a pipe of its own
// (descriptor StreamFD) and its stdout and stderr drained into captures.
func (r *Runner) start(s results.Scenario) (*childProc, error) {
	tmp, err := os.MkdirTemp("", TempPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("gcstress: the child's temporary folder: %w", err)
	}
	cmd, err := r.command(s, tmp)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("gcstress: stream pipe: %w", err)
	}
	cmd.ExtraFiles = []*os.File{pw} // StreamFD = 3 + index 0
	p := &childProc{r: r, s: s, cmd: cmd, stream: pr, stdout: NewCapture(CaptureKeep), stderr: NewCapture(CaptureKeep),
		done: make(chan struct{}), tmp: tmp}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	p.t0 = time.Now()
	p.progressAt.Store(p.t0.UnixNano())
	err = cmd.Start()
	_ = pw.Close() // the child has its own copy; EOF comes when it exits
	if err != nil {
		_ = pr.Close()
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("gcstress: start child for %s: %w", s.Name, err)
	}
	return p, nil
}
