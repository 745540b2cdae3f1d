package gcstress

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
)

// Summary is a whole run: what ran, on what, and each scenario's Result.
// It is written as summary.json and feeds every report. A plain value.
type Summary struct {
	Command      string     `json:"command"`
	Started      time.Time  `json:"started"`
	Finished     time.Time  `json:"finished"`
	GoVersion    string     `json:"go_version"`
	GOEXPERIMENT string     `json:"goexperiment"`
	Commit       string     `json:"commit,omitempty"`
	GOOS         string     `json:"goos"`
	GOARCH       string     `json:"goarch"`
	CPUs         int        `json:"cpus"`
	CPUModel     string     `json:"cpu_model,omitempty"`
	MemTotal     uint64     `json:"mem_total,omitempty"`
	Thresholds   Thresholds `json:"thresholds"`
	Rules        string     `json:"rules"`
	SpanNote     string     `json:"span_note"`
	Interrupted  bool       `json:"interrupted,omitempty"`
	Out          string     `json:"out"`
	Results      []Result   `json:"results"`
}

// Main is the whole command: the child of a scenario when ChildEnv is set,
// `gcstress explain ...`, or a stress run. Errors wrap ErrUsage (exit 2),
// ErrInterrupted (the run was stopped; reports were written) or are tool
// failures (exit 1). flag.ErrHelp is returned for -h.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if spec := os.Getenv(ChildEnv); spec != "" {
		return childMain(ctx, spec, stdout)
	}
	if len(args) > 0 && args[0] == "explain" {
		err := explain.Main(ctx, args[1:], stdout, stderr)
		if errors.Is(err, explain.ErrUsage) {
			return fmt.Errorf("%w: explain: %v", ErrUsage, err)
		}
		return err
	}
	cfg, err := ParseFlags(args, stderr)
	if err != nil {
		return err
	}
	return Run(ctx, cfg, stdout, stderr)
}

// Run runs a validated Config: every scenario in a child, then the reports
// (results folder always, terminal report in cfg.Format on stdout; progress
// on stderr). cfg.Out must be missing or empty unless cfg.ReplaceOut is set
// (ErrUsage otherwise; see outdir.go). Cancelling ctx stops the current scenario and writes the
// reports of what finished; Run then returns ErrInterrupted.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	return runWith(ctx, cfg, &Runner{StopOnFail: true}, stdout, stderr)
}

func runWith(ctx context.Context, cfg Config, r *Runner, stdout, stderr io.Writer) error {
	if err := prepareOut(cfg.Out, cfg.ReplaceOut, stderr); err != nil {
		return err
	}
	scen := Expand(cfg)
	sum := newSummary(cfg)
	// O_EXCL: a run never appends to another run's samples.
	f, err := os.OpenFile(filepath.Join(cfg.Out, "samples.jsonl"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("gcstress: %w", err)
	}
	defer f.Close()
	r.Samples = f
	prog := newProgress(stderr, len(scen))
	r.OnLine = prog.line
	for i, s := range scen {
		if ctx.Err() != nil {
			break
		}
		prog.start(i, s)
		res, err := r.Run(ctx, s)
		if err != nil {
			prog.close()
			return err
		}
		if ctx.Err() != nil {
			res.Stopped = "interrupted"
		}
		if s.Profile != "" || res.Flight != "" {
			res.Account, res.Headline = accountFor(s.Dir, stderr)
		}
		prog.done(res)
		sum.Results = append(sum.Results, res)
	}
	prog.close()
	sum.Finished = time.Now().UTC()
	sum.Interrupted = ctx.Err() != nil
	if err := WriteResults(cfg.Out, sum); err != nil {
		return err
	}
	if err := WriteReport(stdout, cfg.Format, sum); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "results: %s\n", cfg.Out)
	if sum.Interrupted {
		return fmt.Errorf("%w: reports of %d finished scenario(s) written to %s", ErrInterrupted, len(sum.Results), cfg.Out)
	}
	return nil
}

func newSummary(cfg Config) *Summary {
	s := &Summary{Command: cfg.Command, Started: time.Now().UTC(), GoVersion: runtime.Version(),
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Thresholds: cfg.Thresholds,
		Rules: cfg.Thresholds.String(), SpanNote: SpanNote, Out: cfg.Out}
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
	s.CPUModel, s.MemTotal = machine()
	return s
}

// machine reads the CPU model and total memory from /proc (Linux).
func machine() (string, uint64) {
	var model string
	var mem uint64
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb uint64
			if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); n == 1 {
				mem = kb << 10
				break
			}
		}
		f.Close()
	}
	return model, mem
}

// WriteResults writes summary.json, report.md and the charts into dir
// (samples.jsonl is written while the run goes).
func WriteResults(dir string, sum *Summary) error {
	b, err := json.MarshalIndent(compact(sum), "", "  ")
	if err != nil {
		return fmt.Errorf("gcstress: summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("gcstress: %w", err)
	}
	charts, err := WriteCharts(dir, sum)
	if err != nil {
		return err
	}
	mf, err := os.Create(filepath.Join(dir, "report.md"))
	if err != nil {
		return fmt.Errorf("gcstress: %w", err)
	}
	werr := WriteMarkdown(mf, sum, charts)
	if cerr := mf.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// WriteReport prints the terminal report in format (table, ycsb, pe, json).
func WriteReport(w io.Writer, format string, sum *Summary) error {
	switch format {
	case "table", "":
		return WriteTable(w, sum)
	case "ycsb":
		return WriteYCSB(w, sum)
	case "pe":
		return WritePE(w, sum)
	case "json":
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(compact(sum))
	}
	return fmt.Errorf("%w: -format: unknown format %q", ErrUsage, format)
}

// ExitCode maps Main's error to the command's exit status: 0 completed
// (whatever the scenarios' health), 2 usage, 130 interrupted, 1 otherwise.
func ExitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	case errors.Is(err, ErrInterrupted):
		return 130
	}
	return 1
}

// compact returns a copy of sum without the latency histograms (each is
// about 28K counts; they stay in samples.jsonl's end lines) for summary.json.
func compact(sum *Summary) *Summary {
	c := *sum
	c.Results = make([]Result, len(sum.Results))
	for i, r := range sum.Results {
		if r.End != nil {
			e := *r.End
			e.Hist = nil
			r.End = &e
		}
		r.Last.Hist = nil
		c.Results[i] = r
	}
	return &c
}
