package callgrind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/writegc/writegc/internal/oskit"
)

// MaxStdout bounds what Measure keeps of a benchmark's standard output and
// error: the result line is near the end, and a benchmark that prints without
// bound must not fill memory.
const MaxStdout = 1 << 20

// DefaultMaxOutput is Runner.MaxOutput's default: what one run may print on
// its standard output and error together before it is stopped.
const DefaultMaxOutput int64 = 256 << 20

// Env is the environment Measure adds to the benchmark's: see the package doc.
var Env = []string{"GOMAXPROCS=1", "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off"}

// Runner runs single benchmarks of compiled test binaries under callgrind.
// The zero Runner uses "valgrind" from PATH and the system's temporary
// folder. A Runner holds no state: one value may run any number of
// measurements at once.
//
// Every run is bounded (internal/oskit): valgrind leads a process group
// of its own, killed whole when the context is done and once valgrind
// exits, so a child of the benchmark holding its output cannot keep Count
// waiting; valgrind runs with --vgdb=no, so no vgdb FIFO is made (nor left
// behind by a killed run); and a run that prints more than MaxOutput bytes
// is stopped with ErrOutputTooLarge.
type Runner struct {
	Valgrind string   // the valgrind binary; default "valgrind"
	Dir      string   // the benchmark's working directory (its package's folder)
	TmpDir   string   // where callgrind's output files go; each is removed after it is read
	Env      []string // the environment before Env is added; nil means os.Environ()
	// MaxOutput bounds what one run may print on its standard output and
	// error together, in bytes; 0 means DefaultMaxOutput.
	MaxOutput int64
	// Inlines, when set, names the functions inlined into others in the
	// per-function counts (ParseProfileInlined): the runs then dump
	// instruction addresses (--dump-instr=yes). It must be bin's
	// (ReadInlines), read only.
	Inlines *Inlines
}

// BenchRegexp is the -test.bench pattern that selects exactly the benchmark
// named name (a full name such as "BenchmarkPut/kind=arena/value=100B", with
// or without its -GOMAXPROCS suffix): every level anchored and quoted.
func BenchRegexp(name string) string {
	levels := strings.Split(TrimProcs(name), "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// TrimProcs removes a benchmark name's -GOMAXPROCS suffix.
func TrimProcs(name string) string { return procsSuffix.ReplaceAllString(name, "") }

// LoOps is the op count of Measure's smaller run. It is 2, not 1: at
// -test.benchtime 1x the testing package keeps its N=1 probe as the result
// and never calls the benchmark a second time, so the fixed cost of that call
// (a runtime.GC, the timers, the loop's set-up) would not cancel.
const LoOps = 2

// Measurement is one Measure: the per-op figures and the rise of each
// function's self instruction count per op (FuncDiff), both over the same
// difference of ops. It is a plain value.
type Measurement struct {
	PerOp PerOp
	Funcs map[string]FuncPerOp
}

// Measure runs benchmark name of test binary bin at LoOps and at n+LoOps ops
// and returns the per-op figures of the difference: n ops, executed after
// the same start (process start-up, the N=1 probe, LoOps ops), whose fixed
// costs cancel.
func (r Runner) Measure(ctx context.Context, bin, name string, n int) (PerOp, error) {
	m, err := r.MeasureFuncs(ctx, bin, name, n)
	return m.PerOp, err
}

// MeasureFuncs is Measure with the per-function rise (Measurement.Funcs).
func (r Runner) MeasureFuncs(ctx context.Context, bin, name string, n int) (Measurement, error) {
	if n < 1 {
		return Measurement{}, fmt.Errorf("callgrind: op count %d: want at least 1", n)
	}
	lo, err := r.Profile(ctx, bin, name, LoOps)
	if err != nil {
		return Measurement{}, err
	}
	hi, err := r.Profile(ctx, bin, name, n+LoOps)
	if err != nil {
		return Measurement{}, err
	}
	per, err := Diff(lo.Counts, hi.Counts, LoOps, n+LoOps)
	if err != nil {
		return Measurement{}, err
	}
	funcs, err := FuncDiff(lo, hi, LoOps, n+LoOps)
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{PerOp: per, Funcs: funcs}, nil
}

// Count runs benchmark name of bin once at n ops under callgrind and returns
// the process's totals.
func (r Runner) Count(ctx context.Context, bin, name string, n int) (Counts, error) {
	p, err := r.Profile(ctx, bin, name, n)
	if err != nil {
		return nil, err
	}
	return p.Counts, nil
}

// Profile runs benchmark name of bin once at n ops under callgrind and
// returns the process's totals and per-function counts (ParseProfile).
func (r Runner) Profile(ctx context.Context, bin, name string, n int) (*Profile, error) {
	f, err := os.CreateTemp(r.TmpDir, "callgrind-*.out")
	if err != nil {
		return nil, err
	}
	out := f.Name()
	f.Close()
	defer os.Remove(out)
	if err := r.run(ctx, bin, name, n, out); err != nil {
		return nil, err
	}
	return readProfile(out, r.Inlines)
}

// run runs the benchmark once under callgrind, writing its output to out.
func (r Runner) run(ctx context.Context, bin, name string, n int, out string) error {
	stdout, err := r.valgrind(ctx, bin, name, n, []string{"--callgrind-out-file=" + out},
		"-test.bench="+BenchRegexp(name), "-test.benchtime="+strconv.Itoa(n)+"x")
	if err != nil {
		return err
	}
	return checkRan(stdout, name)
}

// valgrind runs bin under callgrind with the tool options opts and the test
// flags args (besides -test.run=^$ and -test.count=1) and returns what it
// printed on its standard output (the last MaxStdout bytes). what and n
// name the run in errors.
func (r Runner) valgrind(ctx context.Context, bin, what string, n int, opts []string, args ...string) ([]byte, error) {
	vg := r.Valgrind
	if vg == "" {
		vg = "valgrind"
	}
	argv := append([]string{"--tool=callgrind", "--cache-sim=yes", "--vgdb=no"}, opts...)
	if r.Inlines != nil {
		argv = append(argv, "--dump-instr=yes") // addresses, to find the inlined calls
	}
	argv = append(append(argv, bin, "-test.run=^$"), args...)
	argv = append(argv, "-test.count=1")
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := oskit.Command(runCtx, vg, argv...)
	cmd.Dir = r.Dir
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...), Env...)
	limit := r.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	lim := &outputLimit{limit: limit, stop: cancel}
	stdout, stderr := capped{lim: lim}, capped{lim: lim}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := oskit.Run(cmd)
	switch {
	case lim.exceeded():
		return nil, fmt.Errorf("%w: %s %s at %dx: output over the limit of %d bytes; it was stopped",
			ErrOutputTooLarge, filepath.Base(bin), what, n, limit)
	case err != nil:
		return nil, fmt.Errorf("%w: %s %s at %dx: %v\n%s", ErrBadRun, filepath.Base(bin), what, n, err, stderr.tail(2000))
	}
	return stdout.Bytes(), nil
}

// resultNames lists the benchmark names of out's result lines, in order,
// without their -GOMAXPROCS suffix.
func resultNames(out []byte) []string {
	var names []string
	for _, line := range bytes.Split(out, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 2 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		names = append(names, TrimProcs(f[0]))
	}
	return names
}

// checkRan checks that the benchmark output holds a result line for name and
// for no other benchmark.
func checkRan(out []byte, name string) error {
	want := TrimProcs(name)
	names := resultNames(out)
	for _, got := range names {
		if got != want {
			return fmt.Errorf("%w: selecting %s also ran %s (one benchmark per process)", ErrBadRun, want, got)
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: no result line for %s", ErrBadRun, want)
	}
	return nil
}

// outputLimit counts the bytes of a run's standard output and error
// (written from exec's two copying goroutines) and stops the run once they
// pass limit.
type outputLimit struct {
	limit int64
	stop  func()
	n     atomic.Int64
}

// add counts n more bytes and reports whether the total is still in bounds.
func (l *outputLimit) add(n int) bool {
	if l.n.Add(int64(n)) > l.limit {
		l.stop()
		return false
	}
	return true
}

func (l *outputLimit) exceeded() bool { return l.n.Load() > l.limit }

// capped keeps the last MaxStdout bytes written to it (the result line is
// near the end) and counts what it dropped; past lim it refuses writes.
type capped struct {
	buf     []byte
	dropped int64
	lim     *outputLimit
}

func (c *capped) Write(p []byte) (int, error) {
	if c.lim != nil && !c.lim.add(len(p)) {
		return 0, ErrOutputTooLarge
	}
	c.buf = append(c.buf, p...)
	if over := len(c.buf) - MaxStdout; over > 0 {
		c.dropped += int64(over)
		c.buf = append(c.buf[:0], c.buf[over:]...)
	}
	return len(p), nil
}

func (c *capped) Bytes() []byte { return c.buf }

func (c *capped) tail(n int) string {
	b := c.buf
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Available reports whether the valgrind binary runs.
func (r Runner) Available() error {
	vg := r.Valgrind
	if vg == "" {
		vg = "valgrind"
	}
	if _, err := exec.LookPath(vg); err != nil {
		return errors.Join(ErrBadRun, err)
	}
	return nil
}
