// Command slowcal calibrates the regression gate's injected slowdown for one
// benchmark: how many spin iterations at its slowdown site (internal/slowdown,
// WRITEGC_SLOWDOWN_SPINS) slow it by a stated percentage of its own untagged
// ns/op. scripts/calibrate-gate runs it once per slowed benchmark, with two
// test binaries of the same commit: one built without tags (the gate's base)
// and one with -tags gateslow (the slowed head).
//
// Method (see calibrate): a few interleaved rounds run the untagged binary and
// the tagged one at three spin counts; a Theil-Sen line through ns/op against
// the count gives the count for the target; a verification pass of
// interleaved untagged and tagged runs measures the slowdown it really
// causes, and while a pass misses by more than -tol points the count is
// refined by interpolation (secant, or a Newton step on the fitted slope) and
// verified again, -passes at most. The best pass is the result. Every run is a
// fresh process with -test.count 1, as in the gate; no amount is measured in
// wall time at process start.
//
// Output (stdout, one line): SPINS MEASURED-% UNTAGGED-NS/OP INTERCEPT SLOPE
// WITHIN-TOL(yes|no); progress goes to stderr. Exit 2 on error.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/oskit"
	"github.com/writegc/writegc/internal/slowdown"
)

// maxRounds bounds -rounds and -verify, and maxPasses -passes: each round
// is several benchmark runs, so larger values are typing mistakes that
// would run for days.
const maxRounds, maxPasses = 100, 20

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "slowcal:", err)
		os.Exit(2)
	}
}

// runner runs one benchmark of a pair of test binaries.
type runner struct {
	baseBin, headBin, dir, bench, site, benchtime string
	nice                                          int
	timeout                                       time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("slowcal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r runner
	var cfg config
	fs.StringVar(&r.baseBin, "base-bin", "", "test binary built without tags (required)")
	fs.StringVar(&r.headBin, "head-bin", "", "the same package's test binary built with -tags gateslow (required)")
	fs.StringVar(&r.dir, "dir", ".", "the package directory (the binaries' working directory)")
	fs.StringVar(&r.bench, "bench", "", "-test.bench regexp selecting exactly one benchmark (required)")
	fs.StringVar(&r.site, "site", "", "the slowdown site on its path (internal/slowdown.Names) (required)")
	fs.StringVar(&r.benchtime, "benchtime", "100ms", "-test.benchtime of every run (the gate's)")
	fs.IntVar(&r.nice, "nice", 0, "run the binaries under nice -n N (0: not)")
	fs.DurationVar(&r.timeout, "timeout", 5*time.Minute, "-test.timeout of every run")
	fs.Float64Var(&cfg.pct, "pct", 15, "the slowdown to reach, percent of the untagged ns/op")
	fs.Float64Var(&cfg.tol, "tol", 1.5, "stop once a verification pass is within this many points of -pct")
	fs.IntVar(&cfg.rounds, "rounds", 3, "rounds of the fit (4 runs each)")
	fs.IntVar(&cfg.verify, "verify", 5, "rounds of each verification pass (2 runs each)")
	fs.IntVar(&cfg.passes, "passes", 3, "verification passes at most")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case r.baseBin == "" || r.headBin == "" || r.bench == "" || r.site == "":
		return errors.New("-base-bin, -head-bin, -bench and -site are required")
	case cfg.pct <= 0 || cfg.rounds < 1 || cfg.verify < 1 || cfg.passes < 1 || cfg.tol < 0:
		return errors.New("want -pct > 0, -tol >= 0, and -rounds, -verify, -passes >= 1")
	case cfg.rounds > maxRounds || cfg.verify > maxRounds || cfg.passes > maxPasses:
		return fmt.Errorf("want -rounds and -verify <= %d, -passes <= %d", maxRounds, maxPasses)
	case fs.NArg() != 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := benchgate.CheckBenchtime(r.benchtime); err != nil {
		return fmt.Errorf("-benchtime %v", err)
	}
	cfg.nsPerSpin = nsPerSpin()
	res, err := calibrate(func(s int) (float64, error) { return r.measure(ctx, s) }, cfg, stderr)
	if err != nil {
		return err
	}
	within := "no"
	if res.withinTol {
		within = "yes"
	}
	_, err = fmt.Fprintf(stdout, "%d %.2f %.6g %.6g %.6g %s\n", res.spins, res.measured, res.base, res.intercept, res.slope, within)
	return err
}

// measure runs the benchmark once (untagged, or tagged at spins) and returns
// its ns/op.
func (r runner) measure(ctx context.Context, spins int) (float64, error) {
	bin, env := r.baseBin, "WRITEGC_SLOWDOWN_SPINS="
	if spins != untagged {
		bin, env = r.headBin, fmt.Sprintf("WRITEGC_SLOWDOWN_SPINS=%s=%d", r.site, spins)
	}
	argv := []string{bin, "-test.run", "^$", "-test.count", "1", "-test.timeout", r.timeout.String(),
		"-test.benchtime", r.benchtime, "-test.bench", r.bench}
	if r.nice != 0 {
		argv = append([]string{"nice", "-n", strconv.Itoa(r.nice)}, argv...)
	}
	cmd := oskit.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := oskit.Run(cmd); err != nil {
		return 0, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	return parseNsOp(out.String())
}

// parseNsOp returns the ns/op of the one benchmark result line in out.
func parseNsOp(out string) (float64, error) {
	name, ns := "", 0.0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] != "ns/op" {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return 0, fmt.Errorf("bad ns/op in %q", line)
			}
			if name != "" && name != f[0] {
				return 0, fmt.Errorf("the -bench regexp selects more than one benchmark (%s, %s)", name, f[0])
			}
			name, ns = f[0], v
		}
	}
	if name == "" {
		return 0, fmt.Errorf("no benchmark result in the output:\n%s", out)
	}
	return ns, nil
}

// nsPerSpin is a rough cost of one spin iteration on this machine (best of 3).
func nsPerSpin() float64 {
	const n = 20_000_000
	best := time.Duration(1 << 62)
	for range 3 {
		t := time.Now()
		slowdown.Spin(n)
		best = min(best, time.Since(t))
	}
	return max(float64(best.Nanoseconds())/n, 0.01)
}
