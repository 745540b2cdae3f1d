package gcstress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/gcstress/internal/plan"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
)

// Options say where Run writes besides the results folder. The zero
// Options writes nothing else. Writers are used from Run's goroutine only.
type Options struct {
	// Report receives the terminal report in Config.Format; nil: none.
	Report io.Writer
	// Progress receives progress (a live bar per scenario when it is a
	// terminal, plain lines otherwise), notes and the results folder's
	// name; nil: none.
	Progress io.Writer
	// Observer is told about the run as it goes (a live page, a
	// dashboard); nil: none. Its methods are called from Run's goroutine
	// and must not block for long: a slow observer delays the reading of
	// the child's stream.
	Observer Observer

	createTemp createTempFunc // how results files are created; nil: os.CreateTemp (tests inject failures)
}

// Observer follows a run as it goes: Begin once with every scenario the run
// will start, Line for every line a child streams (with the classification
// of that scenario's windows so far), Done when a scenario's Result is
// final, End once with the Summary (also after an interruption). All calls
// come from Run's goroutine, in order; an Observer that serves other
// goroutines (an HTTP server) does its own locking.
type Observer interface {
	Begin(sum *Summary, scenarios []Scenario)
	Line(s Scenario, line Sample, v Health)
	Done(r Result)
	End(sum *Summary)
}

// Run validates cfg, runs every scenario of Expand(cfg) in a child process
// (the running binary, re-executed with the scenario in ChildEnv: the
// program's main must hand a process with ChildEnv set to RunChild, as
// cli.Main does; with cfg.BuildEnvs, the command built in the scenario's
// environment: see buildenvs.go) and writes the results folder:
// samples.jsonl as the run goes, then summary.json, report.md and the
// charts.
//
// Errors: an invalid cfg, or a cfg.Out that cannot be created or is not
// empty (unless cfg.ReplaceOut: see DefaultOutParent), wraps ErrUsage and nothing
// runs. Cancelling ctx stops the current scenario; the reports of what
// finished are written and Run returns their Summary with an error wrapping
// ErrInterrupted. Any other error is a tool failure (a child that cannot be
// started, a report that cannot be written); a scenario that fails, even by
// dying, is a Result, not an error. Run is safe to call once at a time per
// process (children are started one at a time).
func Run(ctx context.Context, cfg Config, opts Options) (*Summary, error) {
	return runWith(ctx, cfg, &Runner{StopOnFail: true}, opts)
}

// RunChild is the child side of a scenario: spec is ChildEnv's value (a
// Scenario as JSON). It builds the scenario's engine, runs the load and
// streams one JSON line per window, ending with the "end" line, on the
// descriptor StreamEnv names (the parent's pipe; stdout when it names
// none: a child started by hand, stream.go); stderr receives warnings that have no place in the stream (a profile
// that could not be written). It returns nil when the load ended normally
// (keys written, run-time cap, interrupted through ctx) and an error
// wrapping ErrChild or ErrRSSCap otherwise; the process should then exit
// non-zero. RunChild takes over the process: GOGC and GOMEMLIMIT come
// from the environment the parent set, and profiles and the flight
// recorder are process-wide.
func RunChild(ctx context.Context, spec string, stdout, stderr io.Writer) error {
	return childMain(child.WithWarnings(ctx, stderr), spec, stdout)
}

func runWith(ctx context.Context, cfg Config, r *Runner, opts Options) (*Summary, error) {
	progressW := writerOrDiscard(opts.Progress)
	bins, err := validateAndBuild(ctx, cfg, progressW)
	if err != nil {
		return nil, err
	}
	defer bins.Remove()
	r.ExeFor = func(s Scenario) (string, []string, bool) { return bins.ExeFor(s.BuildEnv) }
	out, samples, err := startRun(&cfg, opts.createTemp, progressW)
	if err != nil {
		return nil, err
	}
	scen := Expand(cfg)
	sum := newSummary(cfg)
	sum.BuildEnvs = bins.Infos()
	r.Samples = samples
	prog := view.New(progressW, len(scen))
	r.OnLine = prog.Line
	if obs := opts.Observer; obs != nil {
		obs.Begin(sum, scen)
		defer func() { obs.End(sum) }()
		r.OnLine = func(s Scenario, l Sample, v Health) { prog.Line(s, l, v); obs.Line(s, l, v) }
	}
	i := 0
	step := func(ctx context.Context, s Scenario) (Result, error) {
		if err := claimScenarioDir(out, s); err != nil {
			return Result{}, err
		}
		prog.Start(i, s)
		i++
		res, err := r.Run(ctx, s)
		if err != nil {
			return res, err
		}
		if ctx.Err() != nil {
			res.Stopped = results.StopInterrupted
		}
		if out.OwnsDir(s.DirName()) {
			if err := out.RecordTree(s.DirName()); err != nil {
				return res, err
			}
		}
		if s.Profile != "" || res.Flight != "" {
			res.Account, res.Headline = child.Account(s.Dir, progressW)
		}
		if s.Group == SetCapacity && s.Rate > 0 {
			// The step's own health (latency and rate too), as the search
			// judges it from the same result.
			prog.DoneStep(res, plan.Judge(res, s.TargetMBps(), cfg.SLO, cfg.Thresholds))
		} else {
			prog.Done(res)
		}
		if p := results.PanicLine(res.Stderr); p != "" {
			// summary.json has the whole stderr tail; the cause goes where
			// it is seen at once too (the report's notes list it).
			fmt.Fprintf(progressW, "gcstress: %s: the child panicked: %s\n", escape.Terminal(s.RunLabel()), escape.Terminal(p))
		}
		sum.Results = append(sum.Results, res)
		if opts.Observer != nil {
			opts.Observer.Done(res)
		}
		return res, nil
	}
	err = runAll(ctx, cfg, scen, sum, step, progressW)
	prog.Close()
	if cerr := closeSamples(out, samples); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return finishRun(ctx, cfg, sum, opts, progressW, out)
}

// claimScenarioDir records the folder of a scenario whose child will
// write captures there before the child starts, so even a run killed
// mid-scenario leaves it listed. A folder of that name the run did not
// create is refused: the child would write into someone else's files.
func claimScenarioDir(out *outFiles, s Scenario) error {
	if s.Profile == "" && !s.Flight {
		return nil
	}
	name := s.DirName()
	if _, err := os.Lstat(s.Dir); err == nil && !out.OwnsDir(name) {
		return fmt.Errorf("gcstress: scenario %s: %s exists and no run of this folder created it", escape.Terminal(s.Name), s.Dir)
	}
	out.RecordDir(name)
	return out.Save()
}

// closeSamples syncs and closes samples.jsonl and records it whole in the
// manifest. Any failure is an error wrapping ErrWrite naming the file:
// samples that may not be on disk must not feed a verdict.
func closeSamples(out *outFiles, f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrWrite, f.Name(), err)
	}
	if err := out.RecordFile(samplesFile, false); err != nil {
		return err
	}
	return out.Save()
}

// runAll runs the expanded scenarios round by round (Config.Count), each
// round's capacity search after its scenarios.
func runAll(ctx context.Context, cfg Config, scen []Scenario, sum *Summary, step plan.Runner, progress io.Writer) error {
	n := cfg.rounds()
	for round := 1; round <= n; round++ {
		for _, s := range scen {
			if max(s.Repeat, 1) != round {
				continue
			}
			if ctx.Err() != nil {
				return nil
			}
			if _, err := step(ctx, s); err != nil {
				return err
			}
		}
		if !cfg.wants(SetCapacity) || ctx.Err() != nil {
			continue
		}
		repeat := 0
		if n > 1 {
			repeat = round
		}
		capa, err := runCapacity(ctx, cfg, repeat, step)
		sum.Capacity = append(sum.Capacity, capa...)
		if err != nil {
			return err
		}
	}
	if cfg.wants(SetFrontier) && ctx.Err() == nil {
		return runFrontier(ctx, cfg, sum, step, progress) // once, after every round
	}
	return nil
}

// finishRun writes the results folder and the terminal report.
func finishRun(ctx context.Context, cfg Config, sum *Summary, opts Options, progressW io.Writer, out *outFiles) (*Summary, error) {
	sum.Finished = time.Now().UTC()
	sum.LoadEnd = proto.LoadAvg()
	sum.Interrupted = ctx.Err() != nil
	if err := writeResults(out, sum); err != nil {
		return sum, err
	}
	if err := WriteReport(writerOrDiscard(opts.Report), cfg.Format, sum); err != nil {
		return sum, reportErr(opts.Report, err)
	}
	fmt.Fprintf(progressW, "results: %s\n", escape.Terminal(cfg.Out))
	if sum.Interrupted {
		return sum, fmt.Errorf("%w: reports of %d finished scenario(s) written to %s", ErrInterrupted, len(sum.Results), cfg.Out)
	}
	return sum, nil
}

// ReportPath is the file of sum's results folder (Summary.Out) a reader
// opens first: its report.html. It is "" when sum is nil or names no
// folder. The file is there once Run returned sum with a nil error or one
// wrapping ErrInterrupted; Run prints no such line itself (the command,
// package cli, does).
func ReportPath(sum *Summary) string {
	if sum == nil || sum.Out == "" {
		return ""
	}
	return filepath.Join(sum.Out, string(report.HTMLFile))
}

// reportErr names the writer a terminal report could not be written to
// (its file name when it has one: stdout redirected to a file).
func reportErr(w io.Writer, err error) error {
	if errors.Is(err, ErrUsage) {
		return err
	}
	name := "the report writer"
	if f, ok := w.(interface{ Name() string }); ok {
		name = f.Name()
	}
	return fmt.Errorf("%w: terminal report to %s: %w", ErrWrite, name, err)
}

// samplesFile is the stream of every line the children wrote.
const samplesFile = "samples.jsonl"

// startRun validates cfg, settles its results folder (a new one when
// cfg.Out is empty), creates samples.jsonl there, exclusively (a run
// never appends to another run's samples), and the folder's manifest
// listing it.
func startRun(cfg *Config, create createTempFunc, notes io.Writer) (*outFiles, *os.File, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if cfg.Out == "" {
		cfg.Out = runner.NewDir(DefaultOutParent, time.Now(), runner.ShortID())
	}
	if err := runner.Prepare(cfg.Out, cfg.ReplaceOut, runNames(*cfg), notes); err != nil {
		return nil, nil, err
	}
	p := filepath.Join(cfg.Out, samplesFile)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrWrite, p, err)
	}
	out := newOutFiles(cfg.Out, create)
	err = out.RecordFile(samplesFile, true)
	if err == nil {
		err = out.Save()
	}
	if err != nil { // the manifest could not be saved: nothing may be written unlisted
		f.Close()
		os.Remove(p) // empty, and no manifest lists it
		return nil, nil, err
	}
	return out, f, nil
}

func writerOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func newSummary(cfg Config) *Summary {
	s := &Summary{Command: cfg.Command, Started: time.Now().UTC(), GoVersion: runtime.Version(),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), LoadStart: proto.LoadAvg(), Thresholds: cfg.Thresholds,
		Rules: cfg.Thresholds.String(), SpanNote: results.SpanNote, Out: cfg.Out}
	s.GOEXPERIMENT = os.Getenv("GOEXPERIMENT")
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, st := range bi.Settings {
			switch st.Key {
			case "GOEXPERIMENT":
				s.GOEXPERIMENT = st.Value
			case "vcs.revision":
				s.Commit = st.Value
			}
		}
	}
	if s.GOEXPERIMENT == "" {
		s.GOEXPERIMENT = "(default: greenteagc on in Go 1.26)"
	}
	s.CPUModel, s.MemTotal = proto.Machine()
	return s
}

// WriteResults writes summary.json, the charts, report.md and report.html
// into dir (samples.jsonl is written while the run goes), each atomically,
// and records them in dir's manifest. An error wraps ErrWrite and names
// the file; the files written before it are whole.
func WriteResults(dir string, sum *Summary) error {
	out, err := openOutFiles(dir, nil)
	if err != nil {
		return err
	}
	return writeResults(out, sum)
}

func writeResults(o *outFiles, sum *Summary) error {
	return report.WriteFolder(o, sum, report.AtRun)
}

// WriteReport prints the terminal report in format (one of Formats; ""
// is FormatTable). An unknown format wraps ErrUsage.
func WriteReport(w io.Writer, format string, sum *Summary) error {
	if err := report.WriteTerminal(w, format, sum); err != nil {
		if errors.Is(err, report.ErrUnknownFormat) {
			return fmt.Errorf("%w: -format: unknown format %q", ErrUsage, format)
		}
		return err
	}
	return nil
}
