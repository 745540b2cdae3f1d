package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/flagval"
	"github.com/writegc/writegc/internal/inputfile"
)

// errRegression is returned by run when the gate fails (exit status 1).
var errRegression = errors.New("regression")

// errNoisy is returned by run when a gated row is too noisy to judge and
// none regressed (exit status 3): neither a pass nor a regression.
var errNoisy = errors.New("too noisy to judge")

// errHelp: -h was asked for; exit 0 after the usage text.
var errHelp = flag.ErrHelp

const usage = `usage:
  benchgate compare [-alpha 0.01] [-power 0.8] [-threshold 10%] [-threshold FILE] [-accept FILE]
                    [-allow-cross-machine] [-out DIR -format md,json] [-json FILE] [-count N] [-lenient] OLD NEW
  benchgate run -base REF|auto [-head REF] [-bench RE] [-pkgs ./a,./b] [-target 'PKG:RE[@T] [K=V ...]' ...]
                [-count 10] [-benchtime T] [-tags T] [-head-tags T]
                [-base-env 'K=V ...'] [-head-env 'K=V ...'] [-env-drop NAME[,GLOB]]
                [-units FILE] [-out DIR [-format md,json] | -keep] [-max-output-mib 256] [-allow-empty-base] [-nice N]
                [-profiles=true] [-profile-benchtime 1s] [-confirm=true] [-measure wall|instructions] [-jobs N]
                [compare flags]
  benchgate calibrate -out DIR [-rev HEAD] [-count 30] [-chunks 20] [-k 2] [-threshold 10%] [-alpha 0.01] [-power 0.8] [run's target flags]
  benchgate record -db DB [-commit C] [-commit-time T] [label flags] FILE... | -dir DIR
  benchgate history -db DB [-window 50] [-p 0.001] [-min-magnitude 1%] [-format table|md|json] [-out DIR] [-fail-latest 10]
Run "benchgate compare -h", "benchgate run -h" or "benchgate calibrate -h" for the flags.
Flags follow one convention: -threshold (a percentage or a thresholds FILE),
-count (rounds), -out DIR with -format (what is written there). Deprecated
synonyms still work: -thresholds FILE, -markdown FILE (appends), calibrate's
-rounds and -o FILE, history's -html DIR.
Exit status (compare and run): 0 no regression; 1 regression (with run's
-confirm, the default: one that regressed again in a rerun); 2 usage,
input or run error, or missing data (a benchmark missing from the head, a
benchmark with fewer results than -count rounds on a side, a benchmark run
that failed); 3 too noisy to judge: a row's minimum detectable effect (the
mde column: the smallest change the U test finds with probability -power
at these rounds) exceeds its threshold and no row regressed (rerun with
-measure instructions or the -count the report names). A regression wins
over noise; an error wins over both.
Input: benchmark text (go test -bench) or go test -json output (a file
whose first non-blank byte is '{'; its output events are read); values must
be finite and non-negative; files at most 64 MiB, lines at most 64 KiB.
`

// run is the whole command: args without the program name.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		io.WriteString(stderr, usage)
		return errors.New("missing subcommand (compare, run or calibrate)")
	}
	var err error
	switch args[0] {
	case "compare":
		err = runCompare(ctx, args[1:], stdout, stderr)
	case "run":
		err = runRun(ctx, args[1:], stdout, stderr)
	case "calibrate":
		err = runCalibrate(ctx, args[1:], stdout, stderr)
	case "record":
		err = runRecord(ctx, args[1:], stdout, stderr)
	case "history":
		err = runHistory(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		io.WriteString(stdout, usage)
		return nil
	default:
		io.WriteString(stderr, usage)
		return fmt.Errorf("unknown subcommand %q (want compare, run or calibrate)", args[0])
	}
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// gateFlags are the flags shared by compare and run.
type gateFlags struct {
	alpha, power float64
	threshold    thresholdFlag
	accept       string
	markdown     string
	json         string
	lenient      bool
	crossMachine bool
	// format is -format; formats its parsed list, written into outDir
	// (compare's -out, run's -out).
	format  string
	formats []string
	outDir  string
}

func (g *gateFlags) register(fs *flag.FlagSet) {
	g.threshold.pct = pctFlag(benchgate.DefaultThreshold)
	fs.Float64Var(&g.alpha, "alpha", benchgate.DefaultAlpha, "significance level of the Mann-Whitney U test, in (0, 1)")
	fs.Float64Var(&g.power, "power", benchgate.DefaultPower, "probability of detection each row's minimum detectable effect (the mde column) is computed for, in (0, 1); a row whose MDE exceeds its threshold is noisy")
	fs.Var(&g.threshold, "threshold", "smallest relative change of the median that counts, 0% to 100% (10% or 0.1), or a calibrated per-benchmark thresholds `FILE` (benchgate calibrate) whose rows use its threshold; give it twice for both")
	fs.StringVar(&g.accept, "accept", "", "accepted-regressions `file`, one entry a line: "+benchgate.AcceptLineFormat+" (# comments; a missing file accepts nothing)")
	fs.StringVar(&g.markdown, "markdown", "", "deprecated (-out DIR -format md): also append the report as Markdown to `file` (\"-\": stdout)")
	fs.StringVar(&g.format, "format", "", "reports written into -out `DIR`: md (report.md), json (report.json) or md,json; the text report always goes to stdout")
	fs.StringVar(&g.json, "json", "", "also write the report as JSON to `file`, replaced atomically (\"-\": stdout): status, summary and per row verdict, change_pct, noise_pct, mde_pct, confirmed, ...")
	fs.BoolVar(&g.lenient, "lenient", false, "report malformed lines as warnings instead of failing")
	fs.Var(fileFlag{&g.threshold}, "thresholds", "deprecated: -threshold FILE")
	fs.BoolVar(&g.crossMachine, "allow-cross-machine", false, "compare files measured on different machines (cpu, goarch/goamd64, Go version, GOMAXPROCS) with a warning instead of exit 2")
}

// options builds the comparison options: the accepted regressions (expired
// entries are an error) and the thresholds file.
func (g *gateFlags) options(ctx context.Context) (benchgate.Options, error) {
	opts := benchgate.Options{Alpha: g.alpha, Power: g.power, Threshold: float64(g.threshold.pct), AllowCrossMachine: g.crossMachine}
	if g.threshold.pct == 0 {
		opts.Threshold = -1 // an explicit 0%: any significant change counts
	}
	if g.accept != "" {
		acc, err := benchgate.ReadAccepted(g.accept)
		if err != nil {
			return opts, fmt.Errorf("-accept: %w", err)
		}
		if err := benchgate.CheckExpiry(acc, time.Now(), benchgate.GitAge(ctx)); err != nil {
			return opts, fmt.Errorf("-accept: %w", err)
		}
		opts.Accepted = acc
	}
	if g.threshold.file != "" {
		th, err := benchgate.ReadThresholds(g.threshold.file)
		if err != nil {
			return opts, fmt.Errorf("-threshold %s: %w", g.threshold.file, err)
		}
		opts.Thresholds = th
	}
	return opts, nil
}

func (g *gateFlags) validate() error {
	if !(g.alpha > 0 && g.alpha < 1) {
		return fmt.Errorf("-alpha %g: want a value in (0, 1)", g.alpha)
	}
	if !(g.power > 0 && g.power < 1) {
		return fmt.Errorf("-power %g: want a value in (0, 1)", g.power)
	}
	var err error
	if g.formats, err = parseFormats(g.format); err != nil {
		return err
	}
	if len(g.formats) > 0 && g.outDir == "" {
		return fmt.Errorf("-format %s: needs -out DIR, the folder the reports are written to", g.format)
	}
	return nil
}

// pctFlag is a fraction written as "10%" or "0.1".
type pctFlag float64

func (p *pctFlag) String() string { return strconv.FormatFloat(float64(*p)*100, 'f', -1, 64) + "%" }

// Set accepts 0% to 100% (benchgate.MaxThreshold); a bare number is a
// fraction, so "10" (1000%) is refused rather than read as 10%.
func (p *pctFlag) Set(s string) error {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0 && v <= benchgate.MaxThreshold) {
		return fmt.Errorf("want a percentage from 0%% to %g%% like 10%%, or a fraction from 0 to %g like 0.1",
			benchgate.MaxThreshold*100, benchgate.MaxThreshold)
	}
	*p = pctFlag(v)
	return nil
}

// checkRunFlags checks the scalar flags of run, naming the flag.
func checkRunFlags(cfg *benchgate.RunConfig) error {
	switch {
	case cfg.Base == "":
		return errors.New("run: -base is required")
	case cfg.Count < 1 || cfg.Count > benchgate.MaxCount:
		return fmt.Errorf("-count %d: want 1 to %d", cfg.Count, benchgate.MaxCount)
	case cfg.Timeout <= 0:
		return fmt.Errorf("-timeout %v: want a positive duration", cfg.Timeout)
	case cfg.Nice < -20 || cfg.Nice > 19:
		return fmt.Errorf("-nice %d: want -20 to 19", cfg.Nice)
	}
	// calibrate checked its -rev, which it gives as both, before.
	for _, f := range [][2]string{{"-base", cfg.Base}, {"-head", cfg.Head}} {
		if err := revFlag(f[0], f[1]); err != nil {
			return err
		}
	}
	return checkBenchtime(cfg.Benchtime)
}

// setTargets checks and stores -head-env, -base-env, -target and -pkgs.
func setTargets(cfg *benchgate.RunConfig, pkgs string, targets, headEnv, baseEnv listFlag) error {
	var err error
	if cfg.HeadEnv, err = envFlag("-head-env", headEnv); err != nil {
		return err
	}
	if cfg.BaseEnv, err = envFlag("-base-env", baseEnv); err != nil {
		return err
	}
	for _, t := range targets {
		tg, err := parseTarget(t)
		if err != nil {
			return err
		}
		cfg.Targets = append(cfg.Targets, tg)
	}
	cfg.Pkgs = append(cfg.Pkgs, flagval.List(pkgs)...)
	return nil
}

// envFlag reads the values of a repeatable environment flag: each a
// string of blank-separated K=V pairs (benchgate.ParseEnv; "" adds
// nothing), all of them together one environment, a key given once.
func envFlag(name string, values listFlag) ([]string, error) {
	var env []string
	for _, v := range values {
		kvs, err := benchgate.ParseEnv(v)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", name, v, err)
		}
		env = append(env, kvs...)
	}
	if err := benchgate.CheckEnv(env); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return env, nil
}

// parseTarget reads a -target value: 'PKG:REGEXP[@BENCHTIME] [K=V ...]'. The
// part after the regexp's last '@' is the target's own -test.benchtime when it
// reads as one ("200000x", "50ms"); otherwise the '@' belongs to the regexp.
func parseTarget(t string) (benchgate.Target, error) {
	const want = "want 'PKG:REGEXP[@BENCHTIME] [K=V ...]'"
	if err := textFlag("-target", t); err != nil {
		return benchgate.Target{}, err
	}
	f := strings.Fields(t)
	if len(f) == 0 {
		return benchgate.Target{}, fmt.Errorf("-target %q: %s", t, want)
	}
	pkg, re, ok := strings.Cut(f[0], ":")
	if !ok || pkg == "" || re == "" {
		return benchgate.Target{}, fmt.Errorf("-target %q: %s", t, want)
	}
	if benchgate.CheckPackage(pkg) != nil {
		return benchgate.Target{}, fmt.Errorf("-target %q: package %q: want a package path or pattern, not a flag", t, pkg)
	}
	var bt string
	if i := strings.LastIndexByte(re, '@'); i >= 0 && benchgate.CheckBenchtime(re[i+1:]) == nil && re[i+1:] != "" {
		re, bt = re[:i], re[i+1:]
		if re == "" {
			return benchgate.Target{}, fmt.Errorf("-target %q: empty regexp before @%s", t, bt)
		}
	}
	for _, kv := range f[1:] {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return benchgate.Target{}, fmt.Errorf("-target %q: %q: want K=V after the regexp", t, kv)
		}
	}
	if err := benchgate.CheckEnv(f[1:]); err != nil {
		return benchgate.Target{}, fmt.Errorf("-target %q: %w", t, err)
	}
	return benchgate.Target{Pkg: pkg, Bench: re, HeadEnv: f[1:], Benchtime: bt}, nil
}

func checkBenchtime(s string) error { return checkBenchtimeFlag("-benchtime", s) }

// checkBenchtimeFlag accepts what -test.benchtime does: a positive duration
// or a positive count written Nx; "" leaves the testing package's default.
func checkBenchtimeFlag(flagName, s string) error {
	if err := benchgate.CheckBenchtime(s); err != nil {
		return fmt.Errorf("%s %v", flagName, err)
	}
	return nil
}

// maxUnitsBytes bounds the -units file: a few Unit lines, not a data set.
const maxUnitsBytes = 1 << 20

// readSmall reads path, a regular file of at most limit bytes (internal/
// inputfile): a FIFO, a device such as /dev/zero, a socket or a directory is
// refused before anything is read (benchgate.ErrNotRegular), and a longer
// file fails at once (benchgate.ErrTooLarge), so a mistaken path never hangs
// or fills memory.
func readSmall(path string, limit int64) ([]byte, error) {
	b, err := inputfile.ReadFile(path, limit)
	return b, inputfile.Also(err, inputfile.ErrTooLarge, benchgate.ErrTooLarge)
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("benchgate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", stderr)
	var g gateFlags
	g.register(fs)
	rounds := fs.Int("count", 0, "rounds each file should hold: a benchmark with fewer results than this on a side that has it exits 2 (0: no check)")
	fs.StringVar(&g.outDir, "out", "", "`DIR` the -format reports are written to (created if need be)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := g.validate(); err != nil {
		return err
	}
	if *rounds < 0 || *rounds > benchgate.MaxCount {
		return fmt.Errorf("-count %d: want 0 (no check) to %d", *rounds, benchgate.MaxCount)
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("compare: want two files, OLD and NEW, got %d argument(s)", fs.NArg())
	}
	opts, err := g.options(ctx)
	if err != nil {
		return err
	}
	opts.Rounds = *rounds
	base, err := parse(fs.Arg(0), g.lenient, stderr)
	if err != nil {
		return err
	}
	head, err := parse(fs.Arg(1), g.lenient, stderr)
	if err != nil {
		return err
	}
	return gate(base, head, opts, &g, stdout, nil)
}

// parse reads one side; malformed lines are fatal unless lenient.
func parse(path string, lenient bool, stderr io.Writer) (*benchgate.Set, error) {
	set, err := benchgate.ParseFiles(path)
	var mal *benchgate.MalformedError
	if err != nil && lenient && errors.As(err, &mal) && !errors.Is(err, benchgate.ErrNoBenchmarks) {
		fmt.Fprintf(stderr, "benchgate: warning: %v\n", mal)
		return set, nil
	}
	return set, err
}

// gate compares, lets decorate add to the report (base, profiles, the
// confirming rerun's verdicts), prints the text report (and Markdown), and
// maps the outcome to the command's error: decorate's error, then the
// comparison's, then a regression, then noise.
func gate(base, head *benchgate.Set, opts benchgate.Options, g *gateFlags, stdout io.Writer, decorate func(*benchgate.Report) error) error {
	rep, cmpErr := benchgate.Compare(base, head, opts)
	if rep == nil {
		if errors.Is(cmpErr, benchgate.ErrCrossMachine) {
			return fmt.Errorf("%w (-allow-cross-machine compares anyway, with a warning)", cmpErr)
		}
		return cmpErr
	}
	var decErr error
	if decorate != nil {
		decErr = decorate(rep)
	}
	rep.Info = append(rep.Info, benchgate.EnvInfo(base, head)...)
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if g.markdown != "" {
		if err := writeMarkdown(rep, g.markdown, stdout); err != nil {
			return err
		}
	}
	if g.json != "" {
		if err := writeJSON(rep, g.json, stdout, errors.Join(decErr, cmpErr)); err != nil {
			return fmt.Errorf("-json: %w", err)
		}
	}
	if err := writeReports(rep, g.outDir, g.formats, stdout, errors.Join(decErr, cmpErr)); err != nil {
		return err
	}
	if decErr != nil {
		return errors.Join(decErr, cmpErr)
	}
	if cmpErr != nil {
		return cmpErr
	}
	if rep.Regressed() {
		return fmt.Errorf("%w: %d benchmark(s) regressed", errRegression, rep.Count(benchgate.Regressed))
	}
	if rep.Inconclusive() {
		return fmt.Errorf("%w: %s", errNoisy, rep.NoiseAdvice()) // NoiseAdvice does not repeat errNoisy's words
	}
	return nil
}

func writeMarkdown(rep *benchgate.Report, path string, stdout io.Writer) error {
	return writeOutput(path, os.O_APPEND, stdout, rep.WriteMarkdown)
}

// writeOutput runs write on stdout when path is "-", else on the file path,
// created if need be and, by mode (os.O_TRUNC or os.O_APPEND), emptied or
// appended to; an error closing the file is returned too.
func writeOutput(path string, mode int, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|mode, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runFlags are the flags of run and calibrate that say what to build and run.
type runFlags struct {
	cfg                       benchgate.RunConfig
	pkgs, units               string
	targets, headEnv, baseEnv listFlag
	envDrop                   listFlag
	quiet, keep               bool
	maxOutputMiB              int64
	measure                   string
}

func (r *runFlags) register(fs *flag.FlagSet) {
	cfg := &r.cfg
	fs.StringVar(&cfg.Bench, "bench", ".", "benchmark regexp (-test.bench) for the -pkgs packages")
	fs.StringVar(&r.pkgs, "pkgs", "./...", "comma-separated package patterns")
	fs.Var(&r.targets, "target", "`'PKG:REGEXP[@BENCHTIME] [K=V ...]'` to run (repeatable; replaces -pkgs and -bench); @BENCHTIME (200000x, 50ms) replaces -benchtime for this target; K=V pairs are added to that target's head runs only")
	fs.StringVar(&cfg.Benchtime, "benchtime", "", "-test.benchtime per run: a positive duration or count Nx (default: the testing package's 1s)")
	fs.BoolVar(&cfg.Benchmem, "benchmem", true, "report B/op and allocs/op")
	fs.StringVar(&cfg.Tags, "tags", "", "build tags for both sides")
	fs.StringVar(&cfg.HeadTags, "head-tags", "", "extra build tags for the head only (calibration: gateslow)")
	fs.Var(&r.headEnv, "head-env", "`'K=V ...'` the head's environment: blank-separated pairs (a value with blanks in double quotes) added to the head's go commands (GOEXPERIMENT, GOTOOLCHAIN, GOAMD64, GOFLAGS change the build) and binaries; repeatable; '' is the current environment")
	fs.Var(&r.baseEnv, "base-env", "`'K=V ...'` the base's environment, as -head-env; -base HEAD -base-env 'GOEXPERIMENT=nogreenteagc' compares one commit built two ways")
	fs.Var(&r.envDrop, "env-drop", "`NAME[,NAME|GLOB]` more environment variables to keep from the benchmarks, go and git, besides the built-in secrets (GITHUB_TOKEN, *_TOKEN, *_DSN, *PASSWORD*, ...; see benchgate.SecretEnv); repeatable")
	fs.StringVar(&r.units, "units", "", "`file` (at most 1 MiB) of `Unit NAME better=...` lines written at the top of both outputs")
	fs.StringVar(&cfg.OutDir, "out", "", "`dir` for base.txt, head.txt and profiles/ (run: the -format reports; calibrate: thresholds.txt), kept (default: a temporary directory, removed at exit unless -keep)")
	fs.BoolVar(&r.keep, "keep", false, "keep the temporary output directory (without -out) and say where it is")
	fs.Int64Var(&r.maxOutputMiB, "max-output-mib", benchgate.DefaultMaxOutput>>20, "limit, in MiB, of what one benchmark binary run may print on stdout (streamed to disk); a run past it fails the gate (exit 2)")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "limit for each benchmark binary run (positive)")
	fs.IntVar(&cfg.Nice, "nice", 0, "run the benchmark binaries under `nice -n N`, -20 to 19 (negative: higher priority; needs root)")
	fs.BoolVar(&r.quiet, "q", false, "no progress lines on stderr")
	fs.StringVar(&r.measure, "measure", string(benchgate.MeasureWall), "`wall`: the benchmarks' own timings; instructions: each leaf benchmark under valgrind's callgrind at a fixed op count (-benchtime or @Nx, default "+strconv.Itoa(benchgate.DefaultInstructionOps)+"x), gated on instructions/op, D1-misses/op, LL-misses/op and est-cycles/op (default -count "+strconv.Itoa(benchgate.DefaultInstructionCount)+")")
	fs.IntVar(&cfg.Jobs, "jobs", 0, "instruction mode: callgrind runs at once, 1 to "+strconv.Itoa(benchgate.MaxJobs)+" (default min(2, GOMAXPROCS))")
}

// setMeasure checks -measure and, in instruction mode, lowers the default
// of the rounds flag (named countFlags, a deprecated synonym among them) to
// DefaultInstructionCount unless it was given.
func (r *runFlags) setMeasure(fs *flag.FlagSet, count *int, countFlags ...string) error {
	m, err := benchgate.ParseMeasure(r.measure)
	if err != nil {
		return fmt.Errorf("-measure %q: want wall or instructions", r.measure)
	}
	r.cfg.Measure = m
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || slices.Contains(countFlags, f.Name) })
	if m == benchgate.MeasureInstructions && !given {
		*count = benchgate.DefaultInstructionCount
	}
	if r.cfg.Jobs < 0 || r.cfg.Jobs > benchgate.MaxJobs {
		return fmt.Errorf("-jobs %d: want 1 to %d (0: min(2, GOMAXPROCS))", r.cfg.Jobs, benchgate.MaxJobs)
	}
	if m == benchgate.MeasureInstructions && r.cfg.Benchtime != "" && !strings.HasSuffix(r.cfg.Benchtime, "x") {
		return fmt.Errorf("-benchtime %s: -measure instructions needs a fixed op count (Nx)", r.cfg.Benchtime)
	}
	return nil
}

// finish checks the flags (naming the flag) and completes the RunConfig.
func (r *runFlags) finish(stderr io.Writer) error {
	if err := checkRunFlags(&r.cfg); err != nil {
		return err
	}
	if err := checkTextFlags(&r.cfg, r.pkgs); err != nil {
		return err
	}
	if r.maxOutputMiB < 1 || r.maxOutputMiB > 1<<20 {
		return fmt.Errorf("-max-output-mib %d: want 1 to %d", r.maxOutputMiB, 1<<20)
	}
	r.cfg.MaxOutput = r.maxOutputMiB << 20
	if err := setTargets(&r.cfg, r.pkgs, r.targets, r.headEnv, r.baseEnv); err != nil {
		return err
	}
	for _, v := range r.envDrop {
		r.cfg.EnvDrop = append(r.cfg.EnvDrop, flagval.List(v)...)
	}
	if err := benchgate.CheckEnvDrop(r.cfg.EnvDrop); err != nil {
		return fmt.Errorf("-env-drop: %w", err)
	}
	if r.units != "" {
		b, err := readSmall(r.units, maxUnitsBytes)
		if err != nil {
			return fmt.Errorf("-units: %w", err)
		}
		if err := benchgate.CheckPreamble(string(b)); err != nil {
			return fmt.Errorf("-units %q: %w", r.units, err)
		}
		r.cfg.Preamble = string(b)
	}
	if !r.quiet {
		r.cfg.Log = stderr
	}
	return nil
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var g gateFlags
	g.register(fs)
	var r runFlags
	r.register(fs)
	cfg := &r.cfg
	fs.StringVar(&cfg.Base, "base", "", "git revision to compare against (required); auto: the merge base with the default branch, or HEAD~1 on it")
	fs.StringVar(&cfg.Head, "head", "", "git revision under test (default: the working tree)")
	fs.IntVar(&cfg.Count, "count", 10, "rounds, 1 to 1000; each runs every binary once in base, then in head")
	fs.BoolVar(&cfg.AllowEmptyBase, "allow-empty-base", false, "exit 0 (skip) when the base has none of the benchmarks")
	histDB := fs.String("db", "", "also record both sides into this history database (SQLite path, postgres:// URL or libpq key=value DSN; see benchgate record); opened and checked before the run")
	profiles := fs.Bool("profiles", true, "on a regression, profile each regressed benchmark (CPU and allocations, base and head, the same op count) and report the functions whose cost per op grew most")
	confirm := fs.Bool("confirm", true, "run the regressed benchmarks again in -count fresh interleaved rounds before failing: only a regression that shows again fails the gate (exit 1); one that does not passes, reported 'not confirmed'")
	fs.StringVar(&cfg.ProfileBenchtime, "profile-benchtime", "1s", "-test.benchtime of the profiling runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	g.outDir = cfg.OutDir
	if err := g.validate(); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("run: unexpected argument %q (flags only)", fs.Arg(0))
	}
	if err := r.setMeasure(fs, &cfg.Count, "count"); err != nil {
		return err
	}
	if err := r.finish(stderr); err != nil {
		return err
	}
	if err := checkBenchtimeFlag("-profile-benchtime", cfg.ProfileBenchtime); err != nil {
		return err
	}
	opts, err := g.options(ctx)
	if err != nil {
		return err
	}
	opts.Rounds = cfg.Count // a benchmark with fewer results than rounds is missing data
	if *profiles {
		cfg.ProfileSelect = func(base, head *benchgate.Set) []string { return regressedNames(base, head, opts) }
	}
	if *confirm {
		cfg.ConfirmSelect = func(base, head *benchgate.Set) []string { return regressedNames(base, head, opts) }
	}
	if *histDB != "" {
		if err := checkHistoryDB(ctx, *histDB); err != nil {
			return err
		}
	}
	res, err := benchgate.Run(ctx, *cfg)
	if res != nil && !r.keep {
		defer res.RemoveTempOutput()
	}
	printRunNotes(res, cfg.OutDir != "" || r.keep, stderr)
	if errors.Is(err, benchgate.ErrBaseEmpty) && cfg.AllowEmptyBase {
		fmt.Fprintf(stdout, "benchgate: SKIP: the base (%s) has none of the selected benchmarks; nothing to gate\n", res.BaseCommit)
		return nil
	}
	var mal *benchgate.MalformedError
	if err != nil && g.lenient && errors.As(err, &mal) && !errors.Is(err, benchgate.ErrNoBenchmarks) && res.Base != nil && res.Head != nil {
		fmt.Fprintf(stderr, "benchgate: warning: %v\n", err)
		err = nil
	}
	if err != nil {
		return err
	}
	unstable := unstableNoter(ctx, *histDB, res.Head, stderr)
	err = gate(res.Base, res.Head, opts, &g, stdout, func(rep *benchgate.Report) error {
		rep.Info = append(rep.Info, baseLine(res))
		rep.Notes = append(rep.Notes, unstable(rep.Rows)...)
		rep.AddProfiles(append(benchgate.DiffProfileFiles(res.Profiles, benchgate.DefaultProfileTop), res.FuncDiffs...)...)
		if res.ConfirmBase == nil {
			return nil
		}
		return rep.Confirm(res.ConfirmBase, res.ConfirmHead)
	})
	return recordRun(ctx, *histDB, res, err, stderr)
}

// printRunNotes writes a run's notes, why its base was chosen and, when
// kept, where its raw results are; nothing for a run that did not start.
func printRunNotes(res *benchgate.RunResult, kept bool, stderr io.Writer) {
	if res == nil {
		return
	}
	for _, n := range res.Notes {
		fmt.Fprintln(stderr, "benchgate: note:", n)
	}
	if res.BaseReason != "" {
		fmt.Fprintf(stderr, "benchgate: base %s: %s\n", benchgate.ShortCommit(res.BaseCommit), res.BaseReason)
	}
	if res.BaseFile != "" && kept {
		fmt.Fprintf(stderr, "benchgate: raw results: %s %s\n", res.BaseFile, res.HeadFile)
	}
}

// baseLine names the base a run compared against, and why it was chosen.
func baseLine(res *benchgate.RunResult) string {
	l := fmt.Sprintf("base revision: %s = %s", res.BaseRev, benchgate.ShortCommit(res.BaseCommit))
	if res.BaseReason != "" {
		l += " (" + res.BaseReason + ")"
	}
	return l + "; head: " + benchgate.ShortCommit(res.HeadCommit)
}

// regressedNames lists the benchmarks with a regressed row, for profiling.
func regressedNames(base, head *benchgate.Set, opts benchgate.Options) []string {
	rep, _ := benchgate.Compare(base, head, opts)
	if rep == nil {
		return nil
	}
	var names []string
	for _, row := range rep.Rows {
		if row.Verdict == benchgate.Regressed && !slices.Contains(names, row.Name) {
			names = append(names, row.Name)
		}
	}
	return names
}
