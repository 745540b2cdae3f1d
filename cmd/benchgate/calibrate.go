package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/stat"
)

// runCalibrate is `benchgate calibrate`: A/A rounds of the gate set (one
// commit as base and head), cut into chunks the size of a gate run, and
// per-benchmark thresholds written to -out DIR's thresholds.txt (or -o).
func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("calibrate", stderr)
	var r runFlags
	r.register(fs)
	rev := fs.String("rev", "HEAD", "the commit measured as both base and head")
	rounds := fs.Int("count", 30, "rounds per chunk: the -count the gate runs with")
	synonym(fs, "rounds", "count")
	chunks := fs.Int("chunks", 20, "A/A chunks (simulated gate runs); rounds x chunks is at most 1000")
	k := fs.Float64("k", benchgate.DefaultK, "threshold = max(-threshold, k x spread), k in (0, 100]")
	def := pctFlag(benchgate.DefaultThreshold)
	fs.Var(&def, "threshold", "the smallest threshold written (the gate's default), 0% to 100%")
	outPath := fs.String("o", "", "deprecated (-out DIR): write the thresholds `file` here (\"-\": stdout)")
	alpha := fs.Float64("alpha", benchgate.DefaultAlpha, "the gate's significance level, in (0, 1), for each row's MDE")
	power := fs.Float64("power", benchgate.DefaultPower, "the probability of detection each row's MDE is computed for, in (0, 1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := r.setMeasure(fs, rounds, "count", "rounds"); err != nil {
		return err
	}
	if *outPath == "" && r.cfg.OutDir != "" {
		*outPath = filepath.Join(r.cfg.OutDir, thresholdsFile)
	}
	countName := "-count" // a usage error names the flag given, the deprecated one too
	if flagSet(fs, "rounds") {
		countName = "-rounds"
	}
	switch {
	case fs.NArg() != 0:
		return fmt.Errorf("calibrate: unexpected argument %q (flags only)", fs.Arg(0))
	case revFlag("-rev", *rev) != nil:
		return revFlag("-rev", *rev)
	case *outPath == "":
		return fmt.Errorf("calibrate: -out DIR (or -o FILE) is required: where the thresholds file goes")
	case *rounds < 1:
		return fmt.Errorf("%s %d: want at least 1", countName, *rounds)
	case *chunks < benchgate.MinChunks:
		return fmt.Errorf("-chunks %d: want at least %d", *chunks, benchgate.MinChunks)
	case *rounds**chunks > benchgate.MaxCount:
		return fmt.Errorf("%s %d x -chunks %d = %d rounds: want at most %d", countName, *rounds, *chunks, *rounds**chunks, benchgate.MaxCount)
	case !(*k > 0 && *k <= 100):
		return fmt.Errorf("-k %g: want a value in (0, 100]", *k)
	case def == 0:
		return fmt.Errorf("-threshold 0%%: want a positive threshold")
	case !(*alpha > 0 && *alpha < 1):
		return fmt.Errorf("-alpha %g: want a value in (0, 1)", *alpha)
	case !(*power > 0 && *power < 1):
		return fmt.Errorf("-power %g: want a value in (0, 1)", *power)
	}
	r.cfg.Base, r.cfg.Head, r.cfg.Count = *rev, *rev, *rounds**chunks
	if err := r.finish(stderr); err != nil {
		return err
	}
	res, err := benchgate.Run(ctx, r.cfg)
	if res != nil && !r.keep {
		defer res.RemoveTempOutput()
	}
	if res != nil && res.BaseFile != "" && (r.cfg.OutDir != "" || r.keep) {
		fmt.Fprintf(stderr, "benchgate: raw results: %s %s\n", res.BaseFile, res.HeadFile)
	}
	if err != nil {
		return err
	}
	th, err := benchgate.Calibrate(res.Base, res.Head, benchgate.CalibrateConfig{
		Rounds: *rounds, K: *k, Default: float64(def), Date: time.Now().UTC().Format(time.RFC3339), Alpha: *alpha, Power: *power})
	if err != nil {
		return err
	}
	if err := writeThresholds(th, *outPath, stdout); err != nil {
		return err
	}
	if r.cfg.Measure == benchgate.MeasureInstructions {
		// A unit's gate= wins over a thresholds file, and Run writes the
		// instruction units' default gates into every output.
		fmt.Fprintln(stderr, "benchgate calibrate: note: in instruction mode the units' own gates (benchgate.InstructionUnits, or a gate= in -units) judge these rows, not the thresholds written; the spreads say whether those gates fit this machine")
	}
	return printThresholds(th, *outPath, *alpha, *power, stdout)
}

// thresholdsFile is the thresholds file's name in calibrate's -out DIR.
const thresholdsFile = "thresholds.txt"

func writeThresholds(th *benchgate.Thresholds, path string, stdout io.Writer) error {
	return writeOutput(path, os.O_TRUNC, stdout, th.Write)
}

// printThresholds summarises the calibration on stdout: each row's spread,
// threshold and MDE at the chunk's rounds, and for a row whose MDE exceeds
// its threshold (the gate would call it noisy) the rounds that resolve it.
func printThresholds(th *benchgate.Thresholds, path string, alpha, power float64, stdout io.Writer) error {
	if path == "-" {
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "benchgate calibrate: %d chunks of %d A/A rounds, k %g, default %s -> %s\n\n",
		th.Chunks, th.Rounds, th.K, stat.Percent(th.Default, 2), path)
	fmt.Fprintf(tw, "benchmark\tunit\tspread (p95 |A/A delta|)\tthreshold\tMDE at %d rounds (alpha %g, power %g)\n", th.Rounds, alpha, power)
	noisy := 0
	for _, row := range th.Rows {
		src := "k x spread"
		if row.Threshold == th.Default {
			src = "default"
		}
		mde := stat.Percent(row.MDE, 2)
		if math.IsInf(row.MDE, 1) {
			mde = "none (too few rounds for the U test)"
		}
		if row.MDE > row.Threshold {
			noisy++
			mde += " > threshold: noisy; " + roundsText(row.RoundsNeeded)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s (%s)\t%s\n", row.Name, row.Unit, stat.Percent(row.Spread, 2), stat.Percent(row.Threshold, 2), src, mde)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if noisy > 0 {
		_, err := fmt.Fprintf(stdout, "\nnote: %d row(s) would be noisy at %d rounds: their MDE exceeds their threshold (run the gate with more rounds, -measure instructions, or a threshold at the MDE)\n", noisy, th.Rounds)
		return err
	}
	return nil
}

// roundsText says how many rounds a side bring a row's MDE under its
// threshold.
func roundsText(n int) string {
	if n == 0 {
		return fmt.Sprintf("more than %d rounds a side needed", benchgate.MaxCount)
	}
	return fmt.Sprintf("%d rounds a side would resolve it", n)
}
