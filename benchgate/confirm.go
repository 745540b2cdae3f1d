package benchgate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/writegc/writegc/benchgate/internal/callgrind"
)

// Confirming reruns. On a shared runner one noisy spell can make a
// benchmark look slower in every round that ran through it; running the
// regressed benchmarks again, in fresh interleaved rounds, and failing only
// when they regress again turns a false alarm rate p into about p² (two
// independent runs), while a real regression regresses again.

// confirmRounds runs the benchmarks names again in cfg.Count fresh rounds
// into confirm-base.txt and confirm-head.txt (see RunConfig.ConfirmSelect).
func confirmRounds(ctx context.Context, cfg RunConfig, res *RunResult, tmp string, base, head *side, names []string) error {
	cb, ch := base.only(ctx, cfg, names), head.only(ctx, cfg, names)
	res.Confirmed = slices.Clone(names)
	res.ConfirmBaseFile = filepath.Join(res.outDir, "confirm-base.txt")
	res.ConfirmHeadFile = filepath.Join(res.outDir, "confirm-head.txt")
	err := createOutputs(ctx, cfg, res.ConfirmBaseFile, res.ConfirmHeadFile, cb, ch)
	defer func() {
		for _, s := range []*side{cb, ch} {
			if s.out != nil {
				s.out.Close()
			}
		}
	}()
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "benchgate: confirming %d regressed benchmark(s) in %d fresh rounds: %s\n", len(names), cfg.Count, strings.Join(names, ", "))
	cfg.AllowEmptyBase = false // the base ran each of them: missing now is an error
	if cfg.Measure == MeasureInstructions {
		funcs := res.instrFuncs // the first rounds' per-function counts name the functions
		err = runInstrRounds(ctx, cfg, res, tmp, cb, ch)
		res.instrFuncs = funcs
	} else {
		err = runRounds(ctx, cfg, res, cb, ch)
	}
	if err != nil {
		return fmt.Errorf("confirming rerun: %w", err)
	}
	if err := errors.Join(cb.out.Close(), ch.out.Close()); err != nil {
		return err
	}
	cb.out, ch.out = nil, nil
	var berr, herr error
	res.ConfirmBase, berr = parseOwn(res.ConfirmBaseFile, res.tempOut)
	res.ConfirmHead, herr = parseOwn(res.ConfirmHeadFile, res.tempOut)
	return errors.Join(berr, herr)
}

// only returns a copy of the side that runs just the benchmarks names, each
// in the binary that printed it, alone: -test.bench anchored to its name
// (for the GOMAXPROCS its runs get), its target's benchtime kept.
func (s *side) only(ctx context.Context, cfg RunConfig, names []string) *side {
	o := &side{name: s.name, tree: s.tree, commit: s.commit, tags: s.tags, env: s.env, bins: map[string]*binary{}, log: s.log}
	for _, n := range names {
		b := s.byName[n]
		if b == nil || o.bins[n] != nil {
			continue
		}
		env := s.binEnv(b)
		if cfg.Measure == MeasureInstructions {
			env = append(slices.Clone(env), callgrind.Env...)
		}
		bb := *b
		bb.bench = benchRegexp(n, gomaxprocsOf(childEnv(ctx, env...)))
		bb.leaves = nil
		o.bins[n] = &bb
		o.order = append(o.order, n)
	}
	return o
}

// Confirm is the confirmation of a Regressed row by a rerun (see
// Report.Confirm).
type Confirm uint8

// Confirmation states of a row.
const (
	NotRerun     Confirm = iota // no confirming rerun judged the row
	Confirmed                   // it regressed again in the rerun
	NotConfirmed                // it did not: the first rounds' regression does not fail the gate
)

// Confirm judges the report's Regressed rows by a confirming rerun: base
// and head, the Sets of fresh rounds of the regressed benchmarks (Run with
// RunConfig.ConfirmSelect), are compared with the report's options. A row
// that regresses again stays Regressed, marked Confirmed, its note giving
// the rerun's figures; one that does not becomes Unconfirmed (a pass), its
// first figures kept and its note giving the rerun's. An error comparing
// the rerun (nothing in common, a benchmark missing from it, fewer
// rounds than asked) is returned and leaves the rows Regressed: a gate
// never passes on missing data.
func (r *Report) Confirm(base, head *Set) error {
	again, err := Compare(base, head, r.Options)
	if err != nil {
		return fmt.Errorf("confirming rerun: %w", err)
	}
	confirmed, not := 0, 0
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Verdict != Regressed {
			continue
		}
		rerun := again.row(row.Key)
		if rerun != nil && rerun.Verdict == Regressed {
			row.Confirm, confirmed = Confirmed, confirmed+1
			row.Note = joinNote("confirmed on rerun: "+rerun.figures(), row.Note)
			continue
		}
		row.Verdict, row.Confirm, not = Unconfirmed, NotConfirmed, not+1
		what := "absent"
		if rerun != nil {
			what = rerun.figures() + " (" + rerun.Verdict.String() + ")"
		}
		row.Note = joinNote("regressed in the first rounds; rerun: "+what, row.Note)
	}
	r.Confirmed = true
	r.Notes = append(r.Notes, fmt.Sprintf("confirming rerun of the regressed benchmarks: %d row(s) confirmed, %d not confirmed (they pass)", confirmed, not))
	return nil
}

// figures prints a row's change and p-value ("+12.30%, p=0.0001").
func (row *Row) figures() string {
	d := "-"
	if !math.IsNaN(row.Delta) {
		d = fmt.Sprintf("%+.2f%%", row.Delta*100)
	}
	if row.Exact || math.IsNaN(row.P) {
		return d
	}
	return fmt.Sprintf("%s, p=%.2g", d, row.P)
}
