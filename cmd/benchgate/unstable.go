package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/history"
)

// unstableNoter returns what names the report rows whose series is unstable
// in the history db (nothing without one). The history is read before the
// run is recorded; a history that cannot be read is a warning on stderr, as
// the gate's verdict does not depend on it.
func unstableNoter(ctx context.Context, db string, head *benchgate.Set, stderr io.Writer) func([]benchgate.Row) []string {
	if db == "" {
		return func([]benchgate.Row) []string { return nil }
	}
	unstable, machine, err := loadUnstable(ctx, db, head)
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: warning: -db: unstable series not checked: %v\n", err)
	}
	return func(rows []benchgate.Row) []string { return unstableRowNotes(unstable, machine, rows) }
}

// loadUnstable loads the gate-mode history of the head's machine from db
// (run -db, before this run is recorded): the unstable series
// (history.UnstableSeries) and the machine fingerprint they are keyed by.
func loadUnstable(ctx context.Context, db string, head *benchgate.Set) (map[history.SeriesKey]history.Stability, string, error) {
	machine, err := history.Fingerprint(head)
	if err != nil {
		return nil, "", err
	}
	st, err := history.Open(ctx, db, history.Options{})
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	series, err := st.Load(ctx, history.Query{Machine: machine, Mode: history.ModeGate})
	if err != nil {
		return nil, "", err
	}
	return history.UnstableSeries(series), machine, nil
}

// unstableRowNotes names each row (once per benchmark and unit) whose series
// of machine is in unstable.
func unstableRowNotes(unstable map[history.SeriesKey]history.Stability, machine string, rows []benchgate.Row) []string {
	var notes []string
	var seen []benchgate.Key
	for _, r := range rows {
		st, ok := unstable[history.SeriesKey{Benchmark: r.Name, Unit: r.Unit, Machine: machine, Mode: history.ModeGate}]
		if !ok || slices.Contains(seen, r.Key) {
			continue
		}
		seen = append(seen, r.Key)
		notes = append(notes, unstableNote(r, st))
	}
	return notes
}

// unstableNote says why a row's series is unstable and what it means.
func unstableNote(r benchgate.Row, st history.Stability) string {
	var why []string
	if st.Noise > history.UnstableMaxNoise {
		why = append(why, fmt.Sprintf("noise %.1f%% > %.0f%%", st.Noise*100, history.UnstableMaxNoise*100))
	}
	if st.Flips >= history.UnstableMaxFlips {
		why = append(why, fmt.Sprintf("%d verdict flips", st.Flips))
	}
	meaning := "this run's verdict stands (its interleaved rounds judge it)"
	switch r.Verdict {
	case benchgate.Regressed:
		meaning = "this regression still fails the gate (its interleaved rounds judge it), but the series has moved often before: check it is not one more swing"
	case benchgate.Unchanged, benchgate.Within, benchgate.Improved:
		meaning = "this run's verdict stands (its interleaved rounds judge it), but a later run may differ"
	}
	return fmt.Sprintf("%s %s is unstable in the history (latest %d gate runs: %s): %s; benchgate history does not fail on its change points without -fail-unstable",
		r.Name, r.Unit, st.Points, strings.Join(why, ", "), meaning)
}
