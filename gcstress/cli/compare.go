package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress"

	"github.com/writegc/writegc/gcstress/compare"
	"github.com/writegc/writegc/internal/flagval"
)

// Errors of `gcstress compare` that exit 1.
var (
	// errRegressed: a gated figure regressed.
	errRegressed = errors.New("regressed")
	// errInconclusive: with -strict, a gated figure is inconclusive (and
	// none regressed).
	errInconclusive = errors.New("inconclusive (-strict)")
	// errMissing: with -strict, a figure one side only has (and none
	// regressed).
	errMissing = errors.New("missing (-strict)")
)

// compareExample is the command line a flag error shows.
const compareExample = "gcstress compare -threshold 10% -alpha 0.05 OLD NEW"

// compareMain is `gcstress compare [-alpha A] [-threshold T] [-gate UNITS]
// [-strict] OLD NEW`: it compares the bench.txt of two results folders,
// prints the settings the runs differ in and the table on stdout and
// returns an error wrapping errRegressed (exit 1) when a gated figure
// regressed (or, with -strict, wrapping errInconclusive or errMissing,
// when a gated figure is inconclusive or a figure is on one side only),
// and one wrapping gcstress.ErrUsage (exit 2) for bad flags or bad input.
// A flag error is one line with an example; -h prints the usage.
func compareMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gcstress compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	opts := compare.Options{Alpha: compare.DefaultAlpha, Threshold: compare.DefaultThreshold}
	fs.Var(alphaFlag{&opts.Alpha}, "alpha", "significance level of the Mann-Whitney U test, in (0, 1)")
	fs.Var(flagval.Fraction{P: &opts.Threshold, Max: compare.MaxThreshold}, "threshold",
		"relative change of the median past which a figure is better, worse, regressed or inconclusive (10% or 0.1)")
	gate := fs.String("gate", "", "figures gated, comma-separated (default: "+units(compare.Gated())+"; known: "+units(compare.Units())+")")
	fs.BoolVar(&opts.Strict, "strict", false, "also fail (exit 1) on a gated figure that is inconclusive (past the threshold with too few runs a side for the U test) and on a figure one side only has (missing)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			compareUsage(fs)
			return err
		}
		return fmt.Errorf("%w: compare: %v (e.g. %s; gcstress compare -h lists the flags)", gcstress.ErrUsage, err, compareExample)
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: compare: want two results folders, OLD and NEW; got %d argument(s) (e.g. %s)", gcstress.ErrUsage, fs.NArg(), compareExample)
	}
	if *gate != "" {
		opts.Gate = []compare.Unit{}
		for _, u := range flagval.List(*gate) {
			opts.Gate = append(opts.Gate, compare.Unit(u))
		}
	}
	rep, err := compare.Dirs(fs.Arg(0), fs.Arg(1), opts)
	if errors.Is(err, compare.ErrBadInput) || errors.Is(err, compare.ErrBadOption) {
		return fmt.Errorf("%w: compare: %w", gcstress.ErrUsage, err)
	}
	if err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return fmt.Errorf("%w: compare: write to %s: %w", gcstress.ErrWrite, writerName(stdout), err)
	}
	return failures(rep.Failures())
}

// failures is the error naming the failed rows: "compare: regressed: ROW;
// inconclusive (-strict): ROW; missing (-strict): ROW", wrapping
// errRegressed when a row regressed, else errInconclusive or errMissing
// (the first of them that has rows); nil for no rows.
func failures(rows []compare.Row) error {
	groups := []struct {
		err  error
		rows []string
	}{{err: errRegressed}, {err: errInconclusive}, {err: errMissing}}
	for _, r := range rows {
		i := 1
		switch {
		case r.Regressed():
			i = 0
		case r.Missing:
			i = 2
		}
		groups[i].rows = append(groups[i].rows, r.Message())
	}
	var first error
	var head, tail string
	for _, g := range groups {
		switch {
		case len(g.rows) == 0:
		case first == nil:
			first, head = g.err, strings.Join(g.rows, "; ")
		default:
			tail += "; " + g.err.Error() + ": " + strings.Join(g.rows, "; ")
		}
	}
	if first == nil {
		return nil
	}
	return fmt.Errorf("compare: %w: %s%s", first, head, tail)
}

func compareUsage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), "usage: gcstress compare [flags] OLD NEW\n\ncompares the bench.txt of two results folders "+
		"(run both with -count %d or more for p-values at alpha %g);\n"+
		"names the settings the runs differ in (GOGC, GOMEMLIMIT, rate, mix, Go version, ...: from each folder's summary.json) before the table;\n"+
		"verdicts: same, better, worse (not gated), regressed (gated), inconclusive (too few runs to test), missing (one side only);\n"+
		"exit 0: nothing regressed (inconclusive and missing rows pass unless -strict), 1: a gated figure regressed, 2: bad input or flags\n\nflags:\n",
		compare.RunsFor(compare.DefaultAlpha)+1, compare.DefaultAlpha)
	fs.PrintDefaults()
}

// alphaFlag is -alpha: a number in (0, 1).
type alphaFlag struct{ p *float64 }

func (a alphaFlag) String() string {
	if a.p == nil {
		return ""
	}
	return strconv.FormatFloat(*a.p, 'g', -1, 64)
}

func (a alphaFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0 && v < 1) {
		return fmt.Errorf("want a significance level in (0, 1) like 0.05")
	}
	*a.p = v
	return nil
}

func units(us []compare.Unit) string {
	s := make([]string, len(us))
	for i, u := range us {
		s[i] = string(u)
	}
	return strings.Join(s, ",")
}
