package benchgate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/oskit"
)

// DefaultMaxOutput bounds what one run of a benchmark binary may print on
// its standard output (256 MiB): the output goes straight to base.txt or
// head.txt, never into memory, and a run that prints more is stopped with
// ErrOutputTooLarge. RunConfig.MaxOutput changes it.
const DefaultMaxOutput = 256 << 20

// tailBytes is how much of a failed run's output an error quotes.
const tailBytes = 4000

// benchLine is what a run's output says about one benchmark: its name as
// printed and the iteration count of its last result line.
type benchLine struct {
	name  string
	iters int64
}

// runOutput is the standard output of one benchmark binary run: it copies
// every byte to w, counts them against limit (cancelling the run and
// failing the write past it), keeps the last tailBytes for error messages
// and picks the benchmark result lines out of the stream as it passes, with
// at most MaxLineBytes of one line in memory.
//
// It is written by the one goroutine os/exec copies the pipe with and read
// after cmd.Wait returns, which orders the two.
type runOutput struct {
	w        io.Writer
	limit, n int64
	cancel   context.CancelFunc
	exceeded bool
	werr     error  // the first error writing to w
	line     []byte // the current line so far, at most DefaultMaxLineBytes kept
	current  string // the last benchmark name seen at the start of a line
	results  []benchLine
	index    map[string]int
	failed   []string // benchmarks the testing package reported as failed ("--- FAIL: NAME")
	tail     tailBuffer
}

func newRunOutput(w io.Writer, limit int64, cancel context.CancelFunc) *runOutput {
	return &runOutput{w: w, limit: limit, cancel: cancel, index: map[string]int{}}
}

func (o *runOutput) Write(p []byte) (int, error) {
	n := len(p)
	if o.n+int64(n) > o.limit {
		o.exceeded = true
		o.cancel()
		return 0, ErrOutputTooLarge
	}
	if _, err := o.w.Write(p); err != nil {
		o.werr = err
		o.cancel()
		return 0, err
	}
	o.n += int64(n)
	o.tail.Write(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := DefaultMaxLineBytes - len(o.line); room > 0 {
			o.line = append(o.line, chunk[:min(room, len(chunk))]...)
		}
		o.noteName()
		if i < 0 {
			break
		}
		o.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// noteName remembers the benchmark the current line starts with: the
// testing package prints a benchmark's name before running it.
func (o *runOutput) noteName() {
	if bytes.HasPrefix(o.line, []byte("Benchmark")) {
		if f := strings.Fields(string(o.line[:min(len(o.line), 1<<10)])); len(f) > 0 {
			o.current = f[0]
		}
	}
}

// failMark is how the testing package starts the report of a failed
// benchmark: at the start of a line, or after the benchmark's name when it
// failed after its first run.
var failMark = []byte("--- FAIL: ")

// endLine records a complete result line ("BenchmarkX-2 <iters> ...") and
// the benchmarks reported failed.
func (o *runOutput) endLine() {
	defer func() { o.line = o.line[:0] }()
	if i := bytes.Index(o.line, failMark); i >= 0 {
		if f := strings.Fields(string(o.line[i+len(failMark):])); len(f) > 0 && len(o.failed) < 20 && !slices.Contains(o.failed, f[0]) {
			o.failed = append(o.failed, f[0])
		}
		return
	}
	if !bytes.HasPrefix(o.line, []byte("Benchmark")) || !bytes.ContainsAny(o.line, " \t") {
		return
	}
	f := strings.Fields(string(o.line))
	var iters int64
	if len(f) > 1 {
		iters, _ = strconv.ParseInt(f[1], 10, 64)
	}
	if i, ok := o.index[f[0]]; ok {
		o.results[i].iters = iters
		return
	}
	o.index[f[0]] = len(o.results)
	o.results = append(o.results, benchLine{name: f[0], iters: iters})
}

// failedNames says which benchmarks the run reported failed: " (failed:
// BenchmarkX, BenchmarkY)", or "" when it reported none.
func (o *runOutput) failedNames() string {
	if len(o.failed) == 0 {
		return ""
	}
	return " (failed: " + strings.Join(o.failed, ", ") + ")"
}

// tooLarge is the error of a run stopped at the limit. It names the
// benchmark that was running when the testing package had printed its name;
// else (a benchmark printing before its first result, as most do) the
// benchmarks the binary's -test.bench regexp selects (-test.list).
func (o *runOutput) tooLarge(ctx context.Context, b *binary) error {
	what := fmt.Sprintf("%s -test.bench %q", b.importPath, b.bench)
	switch names := b.list(ctx); {
	case o.current != "":
		what = fmt.Sprintf("benchmark %s (%s)", o.current, what)
	case len(names) == 1:
		what = fmt.Sprintf("benchmark %s (%s)", names[0], what)
	case len(names) > 1:
		what = fmt.Sprintf("one of the benchmarks %s (%s)", strings.Join(names, ", "), what)
	}
	return fmt.Errorf("%w: %s printed more than the limit of %d bytes (%s) on its standard output; it was stopped (raise RunConfig.MaxOutput, benchgate run -max-output-mib)",
		ErrOutputTooLarge, what, o.limit, sizeName(o.limit))
}

// list returns the top-level benchmarks b.bench selects in the binary
// (-test.list, at most 20 names, 10 s, 64 KiB of output read), for messages.
func (b *binary) list(ctx context.Context) []string {
	top, _, _ := strings.Cut(b.bench, "/")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := oskit.Command(ctx, b.path, "-test.list", top)
	cmd.Dir = b.dir
	cmd.Env = childEnv(ctx)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil
	}
	wait, err := oskit.Start(cmd)
	if err != nil {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(pipe, 64<<10))
	cancel()
	wait()
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "Benchmark") && !strings.ContainsAny(l, " \t") && len(names) < 20 {
			names = append(names, l)
		}
	}
	return names
}

func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// tailBuffer keeps the last tailBytes written to it.
type tailBuffer struct {
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > tailBytes {
		p = p[len(p)-tailBytes:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return n, nil
}

func (t *tailBuffer) String() string { return tail(string(t.buf), tailBytes) }
