package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
	"github.com/writegc/writegc/gcstress/results"
)

const explainUsage = `usage: gcstress explain [flags] PROFILE|DIR...
       gcstress explain -diff [flags] A B

Explains Go CPU, heap, allocs, fgprof, mutex and block profiles and runtime
traces: the share of CPU in GC and who pays for it, the top allocation sites,
where goroutines wait, and whether slow operations overlapped GC work.
With -diff, A and B are scenario directories or comma-separated lists of
files, printed side by side. Flags may come before or after the arguments.

flags:
`

// explainMain runs "gcstress explain" (package explain is the library;
// this is its command line) with args (not including the program or
// subcommand name), writing the account to stdout and flag help to stderr.
// A usage error wraps explain.ErrUsage (the caller should exit 2); any other error
// means the explanation failed (exit 1). ctx is checked between files only.
func explainMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, explainUsage)
		fs.PrintDefaults()
	}
	var (
		diff     = fs.Bool("diff", false, "compare two scenarios `A B` side by side")
		format   = fs.String("format", "text", "output `format`: text or markdown")
		metrics  = fs.String("metrics-gc-cpu", "", "runtime/metrics GC share of busy CPU over the same window, in `percent` (e.g. 36.9), printed beside the profile's figure")
		region   = fs.String("region", explain.DefaultRegion, "trace region or task `type` that marks one operation")
		slow     = fs.Duration("slow", 0, "operations above this `duration` are slow (default: above p99)")
		topN     = fs.Int("top", 5, "`n` sites per table")
		cycles   = fs.Int("cycles", 12, "GC cycles printed per trace")
		library  = fs.String("library", "", "comma-separated import-path `prefixes` to skip like runtime frames when attributing cost")
		keepStd  = fs.Bool("stdlib", false, "attribute cost to standard-library frames instead of their callers")
		rest     []string
		parseErr error
	)
	// Parse flags interleaved with arguments.
	for a := args; ; {
		if parseErr = fs.Parse(a); parseErr != nil {
			break
		}
		a = fs.Args()
		if len(a) == 0 {
			break
		}
		rest = append(rest, a[0])
		a = a[1:]
		if len(a) == 0 {
			break
		}
	}
	if parseErr != nil {
		if errors.Is(parseErr, flag.ErrHelp) {
			return fmt.Errorf("%w: help requested", explain.ErrUsage)
		}
		return fmt.Errorf("%w: %v", explain.ErrUsage, parseErr)
	}
	if *format != "text" && *format != "markdown" {
		return explainUsageErr(fs, "-format must be text or markdown, not %q", *format)
	}
	opts, err := explainOptions(fs, *region, *slow, *topN, *cycles, *library, *keepStd, *metrics)
	if err != nil {
		return err
	}
	md := *format == "markdown"
	if *diff {
		if len(rest) != 2 {
			return explainUsageErr(fs, "-diff wants exactly two scenarios A B, got %d arguments", len(rest))
		}
		return explainDiff(ctx, opts, rest[0], rest[1], stdout, md)
	}
	if len(rest) == 0 {
		return explainUsageErr(fs, "no profiles given")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a, err := explain.ExplainWith(opts, rest...)
	if err != nil {
		return err
	}
	if md {
		return a.WriteMarkdown(stdout)
	}
	return a.WriteText(stdout)
}

// explainDiff explains scenarios a and b (each a comma-separated set of files
// or a directory) and writes them side by side.
func explainDiff(ctx context.Context, opts explain.Options, a, b string, stdout io.Writer, md bool) error {
	var accs [2]*explain.Account
	for i, arg := range [2]string{a, b} {
		if err := ctx.Err(); err != nil {
			return err
		}
		acc, err := explain.ExplainWith(opts, splitSet(arg)...)
		if err != nil {
			return err
		}
		acc.Scenario = scenarioCost(arg)
		accs[i] = acc
	}
	if accs[0].Label == accs[1].Label {
		accs[0].Label, accs[1].Label = "A:"+accs[0].Label, "B:"+accs[1].Label
	}
	return explain.WriteDiff(stdout, accs[0], accs[1], md)
}

// scenarioCost is the end record's figures of the scenario whose profiles
// are in dir, from summary.json in dir's parent (a results folder holds one
// folder per scenario) or in dir itself; nil when arg is no folder, there is
// no summary, or it has no such scenario with an end record. An unreadable
// summary is no error here: -diff then shows the profiles alone.
func scenarioCost(dir string) *explain.ScenarioCost {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	for _, sumDir := range []string{filepath.Dir(abs), abs} {
		sum, err := results.ReadSummary(sumDir)
		if err != nil {
			continue
		}
		for _, r := range sum.Results {
			if r.End == nil || (r.Scenario.DirName() != filepath.Base(abs) && filepath.Base(r.Scenario.Dir) != filepath.Base(abs)) {
				continue
			}
			if sumDir == abs && len(sum.Results) != 1 {
				continue // a folder of several scenarios: which one is ambiguous
			}
			e := r.End
			return &explain.ScenarioCost{ObjectsPerEntry: e.ObjectsPerEntry, BytesPerEntry: e.BytesPerEntry,
				GCCPUNsPerPut: e.GCCPUNsPerPut, AssistNsPerPut: e.AssistNsPerPut, GCShare: r.Verdict.GCPct / 100}
		}
	}
	return nil
}

// Upper bounds of -top and -cycles: beyond them a table is no longer a
// summary.
const (
	maxTop    = 1000
	maxCycles = 100_000
)

// explainOptions validates the numeric and list flags into explain.Options; errors wrap
// explain.ErrUsage and name the flag.
func explainOptions(fs *flag.FlagSet, region string, slow time.Duration, topN, cycles int, library string, keepStd bool, metrics string) (explain.Options, error) {
	opts := explain.Options{Region: region, SlowOp: slow, Top: topN, MaxCycles: cycles, KeepStdlib: keepStd}
	if slow < 0 {
		return opts, explainUsageErr(fs, "-slow must be 0 (above p99) or a positive duration, not %v", slow)
	}
	if topN < 1 || topN > maxTop {
		return opts, explainUsageErr(fs, "-top must be from 1 to %d, not %d", maxTop, topN)
	}
	if cycles < 1 || cycles > maxCycles {
		return opts, explainUsageErr(fs, "-cycles must be from 1 to %d, not %d", maxCycles, cycles)
	}
	if library != "" {
		opts.Library = strings.Split(library, ",")
	}
	if metrics != "" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(metrics), "%"), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return opts, explainUsageErr(fs, "-metrics-gc-cpu wants a percentage from 0 to 100, not %q", metrics)
		}
		v /= 100
		opts.MetricsGCCPU = &v
	}
	return opts, nil
}

// splitSet turns "a.pprof,b.pprof" into its files; a directory stays whole.
func splitSet(arg string) []string {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return []string{arg}
	}
	return strings.Split(arg, ",")
}

func explainUsageErr(fs *flag.FlagSet, format string, args ...any) error {
	fs.Usage()
	return fmt.Errorf("%w: %s", explain.ErrUsage, fmt.Sprintf(format, args...))
}
