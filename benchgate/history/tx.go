package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// retryable reports a PostgreSQL deadlock or serialization failure: the
// transaction is safe to run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == pgDeadlockDetected || pe.Code == pgSerializationFail)
}

// txAttempts is how often a write transaction is tried when PostgreSQL
// aborts it to break a deadlock or a serialization conflict.
const txAttempts = 5

// inTx runs f in a transaction, again (up to txAttempts times in all) when
// PostgreSQL aborted it to break a deadlock.
func (s *DB) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := s.tryTx(ctx, f)
		if err == nil || attempt == txAttempts || !retryable(err) {
			return s.wrap(err)
		}
	}
}

func (s *DB) tryTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Record stores one prepared record and its points in one transaction. A
// record whose content is stored already is not stored again (Duplicate).
// Errors wrap ErrReadOnly, ErrBadLabel, ErrBadName or ErrTimeout, or are
// the driver's.
func (s *DB) Record(ctx context.Context, r *Recording) (Recorded, error) {
	if s.readOnly {
		return Recorded{}, fmt.Errorf("%w: %s: cannot record", ErrReadOnly, s.name)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var res Recorded
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = s.insert(ctx, tx, r)
		return err
	})
	return res, err
}

// RecordPair stores both sides of an interleaved gate run in one
// transaction, the head's points with their head/base ratio; head itself is
// not changed. Errors are Record's.
func (s *DB) RecordPair(ctx context.Context, base, head *Recording) (baseRec, headRec Recorded, err error) {
	if s.readOnly {
		return Recorded{}, Recorded{}, fmt.Errorf("%w: %s: cannot record", ErrReadOnly, s.name)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	h := *head
	h.Samples = slices.Clone(head.Samples)
	pairRatios(base, &h)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if baseRec, err = s.insert(ctx, tx, base); err != nil {
			return err
		}
		headRec, err = s.insert(ctx, tx, &h)
		return err
	})
	return baseRec, headRec, err
}

// insert stores r and its points within tx.
func (s *DB) insert(ctx context.Context, tx *sql.Tx, r *Recording) (Recorded, error) {
	if err := r.validate(); err != nil {
		return Recorded{}, err
	}
	l := r.Labels
	var res Recorded
	err := tx.QueryRowContext(ctx, s.d.rebind(`INSERT INTO records
		(hash, commit_sha, commit_time, branch, machine, mode, run_id, source, recorded_at, content)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING RETURNING id`),
		r.Hash, l.Commit, unixNano(l.CommitTime), l.Branch, l.Machine, string(l.Mode), l.RunID, l.Source,
		time.Now().UnixNano(), r.Content).Scan(&res.ID)
	if errors.Is(err, sql.ErrNoRows) {
		res.Duplicate = true
		err = tx.QueryRowContext(ctx, s.d.rebind(`SELECT id FROM records WHERE hash = ?`), r.Hash).Scan(&res.ID)
		return res, err
	}
	if err != nil {
		return res, err
	}
	ids, err := s.seriesIDs(ctx, tx, r)
	if err != nil {
		return res, err
	}
	// Only a database at mdeVersion has the column (a DB opened with the
	// package's migrations always is; the tests open older ones).
	mdeCol, mdeArg := "", ""
	if s.schema >= mdeVersion {
		mdeCol, mdeArg = ", mde", ", ?"
	}
	stmt, err := tx.PrepareContext(ctx, s.d.rebind(`INSERT INTO points
		(record_id, series_id, commit_sha, commit_time, n, vals, median, lo, hi, ratio, ratio_lo, ratio_hi`+mdeCol+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?`+mdeArg+`)`))
	if err != nil {
		return res, err
	}
	defer stmt.Close()
	for i, sm := range r.Samples {
		args := []any{res.ID, ids[i], l.Commit, unixNano(l.CommitTime), len(sm.Values), formatValues(sm.Values),
			sm.Median, nullable(sm.Lo, sm.HasInterval), nullable(sm.Hi, sm.HasInterval),
			nullable(sm.Ratio, sm.HasRatio), nullable(sm.RatioLo, sm.HasRatio), nullable(sm.RatioHi, sm.HasRatio)}
		if mdeCol != "" {
			args = append(args, nullable(sm.MDE, sm.HasMDE))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return res, err
		}
	}
	res.Series = len(r.Samples)
	return res, nil
}

// seriesIDs returns the series id of each sample of r, creating the series
// that do not exist yet in sorted order, so that concurrent writers take
// PostgreSQL's row locks in the same order.
func (s *DB) seriesIDs(ctx context.Context, tx *sql.Tx, r *Recording) ([]int64, error) {
	l := r.Labels
	have := map[[2]string]int64{}
	rows, err := tx.QueryContext(ctx, s.d.rebind(`SELECT id, benchmark, unit FROM series WHERE machine = ? AND mode = ?`), l.Machine, string(l.Mode))
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var b, u string
		if err := rows.Scan(&id, &b, &u); err != nil {
			rows.Close()
			return nil, err
		}
		have[[2]string{b, u}] = id
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	order := make([]int, len(r.Samples))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		sa, sb := r.Samples[a], r.Samples[b]
		return strings.Compare(sa.Benchmark+"\x00"+sa.Unit, sb.Benchmark+"\x00"+sb.Unit)
	})
	ids := make([]int64, len(r.Samples))
	for _, i := range order {
		sm := r.Samples[i]
		k := [2]string{sm.Benchmark, sm.Unit}
		if id, ok := have[k]; ok {
			ids[i] = id
			continue
		}
		err := tx.QueryRowContext(ctx, s.d.rebind(`INSERT INTO series (benchmark, unit, machine, mode, better)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (benchmark, unit, machine, mode) DO NOTHING RETURNING id`),
			sm.Benchmark, sm.Unit, l.Machine, string(l.Mode), int(sm.Direction)).Scan(&ids[i])
		if errors.Is(err, sql.ErrNoRows) {
			err = tx.QueryRowContext(ctx, s.d.rebind(`SELECT id FROM series WHERE benchmark = ? AND unit = ? AND machine = ? AND mode = ?`),
				sm.Benchmark, sm.Unit, l.Machine, string(l.Mode)).Scan(&ids[i])
		}
		if err != nil {
			return nil, err
		}
		have[k] = ids[i]
	}
	return ids, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

func nullable(v float64, ok bool) sql.NullFloat64 { return sql.NullFloat64{Float64: v, Valid: ok} }

func formatValues(vs []float64) string {
	b := make([]byte, 0, len(vs)*8)
	for i, v := range vs {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return string(b)
}

func parseValues(s string) ([]float64, error) {
	f := strings.Fields(s)
	out := make([]float64, 0, len(f))
	for _, w := range f {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: stored value %q", ErrCorrupt, w)
		}
		out = append(out, v)
	}
	return out, nil
}
