package gcstress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"

	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// Kinds of hostile engines, registered in init so that this test binary's
// children know them too.
const (
	testPrintKind    = "test-print"     // prints a byte without newline on stdout per Put, and once on stderr
	testPrintBigKind = "test-print-17m" // prints 17 MiB without newline on stdout in its first Put
	testDeadlockKind = "test-deadlock"  // every Put after the 500th blocks forever, Close does not release it
)

const (
	bigPrint  = 17 << 20 // what testPrintBigKind prints
	printKeys = 200_000  // keys of the printing scenarios: a few windows
)

func init() {
	RegisterEngine(testPrintKind, func(Scenario) (Engine, error) { return &printEngine{}, nil })
	RegisterEngine(testPrintBigKind, func(Scenario) (Engine, error) { return &printEngine{big: true}, nil })
	RegisterEngine(testDeadlockKind, func(Scenario) (Engine, error) { return &deadlockEngine{}, nil })
}

// printEngine writes nowhere but on the child's stdout and stderr, as a
// user's debugging fmt.Print would.
type printEngine struct {
	big  bool
	puts atomic.Int64
}

func (e *printEngine) Put(key, value []byte) error {
	n := e.puts.Add(1)
	switch {
	case e.big && n == 1:
		os.Stdout.Write(bytes.Repeat([]byte{'z'}, bigPrint))
	case !e.big:
		fmt.Print("p")
	}
	if n == 1 {
		fmt.Fprint(os.Stderr, "engine: hello on stderr")
	}
	return nil
}

func (e *printEngine) Close() error { return nil }

// deadlockEngine is a deadlocked write path: Puts after the 500th never
// return, whatever happens.
type deadlockEngine struct{ puts atomic.Int64 }

func (e *deadlockEngine) Put(key, value []byte) error {
	if e.puts.Add(1) > 500 {
		var never chan struct{}
		<-never
	}
	return nil
}

func (e *deadlockEngine) Close() error { return nil }

// runBounded runs s and fails the test if Run does not return within
// limit: the point of the watchdog tests is that it returns at all.
func runBounded(t *testing.T, r *Runner, ctx context.Context, s Scenario, limit time.Duration) Result {
	t.Helper()
	type out struct {
		res Result
		err error
	}
	ch := make(chan out, 1)
	go func() { res, err := r.Run(ctx, s); ch <- out{res, err} }()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(limit):
		t.Fatalf("Run of %s did not return within %v", s.Name, limit)
	}
	return Result{}
}

// TestForeignOutputKeepsTheStream: an engine printing without a newline in
// every Put, and one printing 17 MiB without a newline, leave the child's
// stream whole: every window is classified, the end line arrives, the
// verdict is the engine's own, and the output is counted, kept bounded in
// the scenario's folder and warned about.
func TestForeignOutputKeepsTheStream(t *testing.T) {
	for _, kind := range []string{testPrintKind, testPrintBigKind} {
		t.Run("kind="+kind, func(t *testing.T) {
			var samples syncBuf
			s := tinyScenario(t, kind+"/100B", kind, printKeys)
			res := runBounded(t, &Runner{Samples: &samples}, context.Background(), s, 60*time.Second)
			if res.End == nil || res.End.Reason != results.StopKeys || res.End.Keys != printKeys || res.Exit.Died {
				t.Fatalf("end %+v exit %+v stream error %q", res.End, res.Exit, res.StreamErr)
			}
			if res.Verdict.Class == results.Failed || len(res.Windows) == 0 || len(res.Verdict.Windows) != len(res.Windows) {
				t.Fatalf("verdict %s (%s), %d windows, %d classified", res.Verdict.Class, res.Verdict.Why, len(res.Windows), len(res.Verdict.Windows))
			}
			want := int64(printKeys)
			if kind == testPrintBigKind {
				want = bigPrint
			}
			f := res.Foreign
			if f == nil || f.StdoutBytes != want || f.StderrBytes != int64(len("engine: hello on stderr")) || !f.ExitedOK {
				t.Fatalf("foreign output %+v, want %d bytes on stdout", f, want)
			}
			if f.StdoutFile != filepath.Join(s.Dir, ChildStdoutFile) || f.StderrFile != filepath.Join(s.Dir, ChildStderrFile) {
				t.Fatalf("files %q %q", f.StdoutFile, f.StderrFile)
			}
			b, err := os.ReadFile(f.StdoutFile)
			if err != nil || len(b) > 2*CaptureKeep+200 || !bytes.HasPrefix(b, bytes.Repeat(b[:1], 1000)) {
				t.Fatalf("%s: %d bytes, %v", f.StdoutFile, len(b), err)
			}
			if kind == testPrintBigKind && !strings.Contains(string(b), fmt.Sprintf("%d bytes left out", bigPrint-2*CaptureKeep)) {
				t.Fatalf("%s does not say what was left out", f.StdoutFile)
			}
			if w := f.Warning(s.Name); !strings.Contains(w, fmt.Sprintf("%d bytes on stdout", want)) || !strings.Contains(w, f.StdoutFile) {
				t.Fatalf("warning %q", w)
			}
			if strings.Contains(samples.String(), "ppp") || strings.Contains(samples.String(), "zzz") {
				t.Fatal("foreign output reached samples.jsonl")
			}
		})
	}
}

// TestStallWatchdog: with no run-time cap, a child whose Puts deadlock,
// and one that is stopped (SIGSTOP), are stopped by the watchdog and fail
// as stalled, with the reason named.
func TestStallWatchdog(t *testing.T) {
	for _, how := range []string{"deadlock", "sigstop"} {
		t.Run("child="+how, func(t *testing.T) {
			s := tinyScenario(t, "stall/"+how, testDeadlockKind, 1_000_000_000)
			s.Duration, s.StallTimeout = 0, time.Second
			r := &Runner{Grace: 500 * time.Millisecond}
			if how == "sigstop" {
				s.Kind = testEngineKind
				r.OnLine = func(_ Scenario, l Sample, _ Health) {
					if l.Type == results.SampleStart {
						syscall.Kill(l.PID, syscall.SIGSTOP)
					}
				}
			}
			res := runBounded(t, r, context.Background(), s, 60*time.Second)
			if res.Stopped != results.StopStalled || !res.Exit.Stalled || res.Verdict.Class != results.Failed {
				t.Fatalf("stopped %q exit %+v verdict %s", res.Stopped, res.Exit, res.Verdict.Class)
			}
			if !strings.Contains(res.Verdict.Why, "no progress for 1s") || !strings.Contains(view.CellText(res), "stalled") {
				t.Fatalf("why %q, cell %q", res.Verdict.Why, view.CellText(res))
			}
		})
	}
}

// TestInterruptedBeforeEndRecord: a run cancelled through its context
// while its child cannot end (its Puts deadlocked) leaves a scenario
// without an end record that is interrupted, not failed.
func TestInterruptedBeforeEndRecord(t *testing.T) {
	s := tinyScenario(t, "deadlock/100B", testDeadlockKind, 1_000_000_000)
	s.Duration, s.StallTimeout = 0, 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	windows := 0
	r := &Runner{Grace: 300 * time.Millisecond}
	r.OnLine = func(_ Scenario, l Sample, _ Health) {
		if l.Type == results.SampleWindow {
			if windows++; windows == 3 {
				cancel()
			}
		}
	}
	var samples syncBuf
	r.Samples = &samples
	res := runBounded(t, r, ctx, s, 60*time.Second)
	if res.End != nil || res.Stopped != results.StopInterrupted || !res.Exit.Interrupted || res.Exit.Died {
		t.Fatalf("end %+v stopped %q exit %+v", res.End, res.Stopped, res.Exit)
	}
	if res.Verdict.Class != results.Interrupted || !strings.Contains(view.CellText(res), "interrupted at") {
		t.Fatalf("verdict %s (%s), cell %q", res.Verdict.Class, res.Verdict.Why, view.CellText(res))
	}
	// The recorded stream replays the same way, from the parent's exit line.
	rs, err := results.ReadResults(strings.NewReader(samples.String()), results.DefaultThresholds())
	if err != nil || len(rs) != 1 || rs[0].Verdict.Class != results.Interrupted || rs[0].Stopped != results.StopInterrupted {
		t.Fatalf("replay: %v %+v", err, rs)
	}
}

// TestReplayParentKilled: a stream of protocol 2 that stops without an end
// or exit line (gcstress killed with its child) replays as interrupted; an
// exit line saying the child died replays as failed; a stream from before
// protocol 2 keeps its old reading (died: no end record).
func TestReplayParentKilled(t *testing.T) {
	spec := Scenario{Name: "heap/100B", Kind: "heap", Thresholds: results.DefaultThresholds()}
	line := func(s Sample) string {
		s.Scenario = spec.Name
		b, _ := json.Marshal(s)
		return string(b) + "\n"
	}
	head := func(proto int) string {
		return line(Sample{Type: results.SampleStart, Spec: &spec, Proto: proto}) +
			line(Sample{Type: results.SampleWindow, T: 1, Dur: 1, Progress: 0.01, Keys: 10})
	}
	died := line(Sample{Type: results.SampleExit, Exit: &results.Exit{Died: true, Message: "signal: killed"}})
	for name, c := range map[string]struct {
		stream string
		class  results.Class
		why    string
	}{
		"parent killed": {head(StreamProto), results.Interrupted, "parent killed"},
		"child died":    {head(StreamProto) + died, results.Failed, "signal: killed"},
		"old stream":    {head(0), results.Failed, "no end record"},
	} {
		rs, err := results.ReadResults(strings.NewReader(c.stream), results.DefaultThresholds())
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v %d results", name, err, len(rs))
		}
		if v := rs[0].Verdict; v.Class != c.class || !strings.Contains(v.Why, c.why) {
			t.Errorf("%s: %s (%s), want %s with %q", name, v.Class, v.Why, c.class, c.why)
		}
	}
}

// failingWriter accepts ok writes, then fails every one; Name names it.
type failingWriter struct {
	ok     int
	writes int
}

var errDiskFull = errors.New("no space left on device (test)")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > w.ok {
		return 0, errDiskFull
	}
	return len(p), nil
}

func (w *failingWriter) Name() string { return "/results/samples.jsonl" }

// TestSampleWriteFailureIsToolFailure: a failed write of samples.jsonl
// (a custom writer, and /dev/full) stops the child and makes Run return an
// error wrapping ErrStream that names the file.
func TestSampleWriteFailureIsToolFailure(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	for name, w := range map[string]io.Writer{"writer": &failingWriter{ok: 2}, "devfull": full} {
		t.Run("to="+name, func(t *testing.T) {
			s := tinyScenario(t, "heap/100B", testEngineKind, 1_000_000_000)
			start := time.Now()
			res, err := (&Runner{Samples: w, Grace: time.Second}).Run(context.Background(), s)
			if !errors.Is(err, ErrStream) || !strings.Contains(err.Error(), w.(interface{ Name() string }).Name()) {
				t.Fatalf("err %v, want ErrStream naming the file", err)
			}
			if res.Stopped != results.StopInterrupted || time.Since(start) > s.Duration {
				t.Fatalf("the child was not stopped: %q after %v", res.Stopped, time.Since(start))
			}
		})
	}
}

// TestChildStreamWriteFailure: a child whose stream cannot be written
// stops its load and returns ErrStream, whether the start line or a later
// line fails.
func TestChildStreamWriteFailure(t *testing.T) {
	for _, ok := range []int{0, 1} {
		s := tinyScenario(t, "map/100B", testEngineKind, 1_000_000_000)
		s.Duration, s.Window = 0, 20*time.Millisecond
		w := &failingWriter{ok: ok}
		done := make(chan error, 1)
		go func() { done <- runChild(context.Background(), s, proto.NewStream(w, s.Name, 0)) }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrStream) || !errors.Is(err, errDiskFull) {
				t.Fatalf("ok %d: %v, want ErrStream", ok, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("ok %d: the child's load did not stop on a failed stream write", ok)
		}
	}
}

// TestClassifyInterrupted: an interrupted exit is its own class, not a
// failure, unless the windows had already failed the scenario.
func TestClassifyInterrupted(t *testing.T) {
	w := win(3, 1, 1, 0.01, 0, 1)
	w.Progress = 0.01
	v := results.Classify([]Sample{w}, results.Exit{Interrupted: true, Message: "interrupted: signal: killed"}, results.DefaultThresholds())
	if v.Class != results.Interrupted || !strings.Contains(v.Why, "interrupted at 1%") || v.FailedAt != 0 {
		t.Fatalf("%+v", v)
	}
	b, _ := json.Marshal(results.Interrupted)
	if string(b) != `"interrupted"` {
		t.Fatalf("class marshals to %s", b)
	}
}

// TestProgressWarnsForeignOutput: the progress lines name the bytes a
// child printed outside its stream, and a fault of its stream.
func TestProgressWarnsForeignOutput(t *testing.T) {
	var out syncBuf
	pr := view.New(&out, 1)
	s := Scenario{Name: "heap/100B", Kind: "heap", Value: 100, Group: SetMatrix}
	pr.Start(0, s)
	pr.Done(Result{Scenario: s, Verdict: Health{Class: results.Healthy}, End: &Sample{Reason: results.StopKeys},
		Foreign:   &results.ForeignOutput{StdoutBytes: 17 << 20, StdoutFile: "out/heap-100B/" + ChildStdoutFile, ExitedOK: true},
		StreamErr: runner.ErrRecordTooLong.Error()})
	for _, want := range []string{"warning: heap/100B: the child printed 17825792 bytes on stdout", ChildStdoutFile, "16 MiB limit"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, out.String())
		}
	}
	// A failed child's stderr is its diagnosis: no warning for it alone.
	if w := (&results.ForeignOutput{StderrBytes: 40}).Warning("x"); w != "" {
		t.Errorf("warning %q for a failed child's stderr", w)
	}
}

// TestRunKeepsForeignOutputInResults: through a whole run, a printing
// engine's output lands in its scenario's folder of the results, is
// counted in summary.json and warned about on the progress stream.
func TestRunKeepsForeignOutputInResults(t *testing.T) {
	out := t.TempDir()
	c := DefaultConfig()
	c.Out, c.Kinds, c.Values, c.Keys, c.Sets = out, []string{testPrintKind}, []int64{100}, []int64{20_000}, []string{SetMatrix}
	c.Memstore, c.Window, c.Duration, c.Regions = 1<<20, 100*time.Millisecond, 0, 1
	c.NoMinRun = true // exactly 20,000 bytes printed
	var report, progress syncBuf
	sum, err := runWith(context.Background(), c, &Runner{StopOnFail: true}, Options{Report: &report, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	file := filepath.Join(out, r.Scenario.DirName(), ChildStdoutFile)
	if b, err := os.ReadFile(file); err != nil || len(b) != 20_000 || r.Verdict.Class == results.Failed {
		t.Fatalf("%s: %d bytes, %v; verdict %s", file, len(b), err, r.Verdict.Class)
	}
	if !strings.Contains(progress.String(), "20000 bytes on stdout") {
		t.Fatalf("no warning:\n%s", progress.String())
	}
	var back Summary
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &back); err != nil || back.Results[0].Foreign == nil || back.Results[0].Foreign.StdoutBytes != 20_000 {
		t.Fatalf("summary.json: %v %+v", err, back.Results)
	}
}
