package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/benchtxt"
	"github.com/writegc/writegc/gcstress/compare"
)

// errRegressed: `gcstress compare` found a gated figure regressed (exit 1).
var errRegressed = errors.New("regressed")

// compareMain is `gcstress compare [-alpha A] [-threshold T] [-gate UNITS]
// OLD NEW`: it compares the bench.txt of two results folders, prints the
// table on stdout and returns an error wrapping errRegressed (exit 1) when
// a gated figure regressed, and one wrapping gcstress.ErrUsage (exit 2) for
// bad flags or bad input.
func compareMain(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gcstress compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts compare.Options
	fs.Float64Var(&opts.Alpha, "alpha", compare.DefaultAlpha, "significance level of the Mann-Whitney U test, in (0, 1)")
	fs.Float64Var(&opts.Threshold, "threshold", compare.DefaultThreshold, "relative change in the bad direction a significant figure must pass to regress (0.10 is 10%)")
	gate := fs.String("gate", "", "figures gated, comma-separated (default: "+units(compare.Gated())+"; known: "+units(benchtxt.Units())+")")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: gcstress compare [flags] OLD NEW\n\ncompares the bench.txt of two results folders (run both with -count 5 or more for p-values);\n"+
			"exit 0: no gated figure regressed, 1: one did, 2: bad input\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: compare: %v", gcstress.ErrUsage, err)
	}
	if !(opts.Alpha > 0 && opts.Alpha < 1) || !(opts.Threshold > 0) {
		return fmt.Errorf("%w: compare: -alpha %g, -threshold %g: want alpha in (0, 1) and a positive threshold", gcstress.ErrUsage, opts.Alpha, opts.Threshold)
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("%w: compare: want two results folders, OLD and NEW; got %d argument(s)", gcstress.ErrUsage, fs.NArg())
	}
	if *gate != "" {
		opts.Gate = []benchtxt.Unit{}
		for _, u := range splitList(*gate) {
			opts.Gate = append(opts.Gate, benchtxt.Unit(u))
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
	if regs := rep.Regressions(); len(regs) > 0 {
		msgs := make([]string, len(regs))
		for i, r := range regs {
			msgs[i] = r.Message()
		}
		return fmt.Errorf("compare: %w: %s", errRegressed, strings.Join(msgs, "; "))
	}
	return nil
}

func units(us []benchtxt.Unit) string {
	s := make([]string, len(us))
	for i, u := range us {
		s[i] = string(u)
	}
	return strings.Join(s, ",")
}
