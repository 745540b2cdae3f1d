package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/writegc/writegc/benchgate"
)

func (q Query) where() (string, []any) {
	var conds []string
	var args []any
	if q.Machine != "" {
		conds, args = append(conds, "s.machine = ?"), append(args, q.Machine)
	}
	if q.Mode != "" {
		conds, args = append(conds, "s.mode = ?"), append(args, string(q.Mode))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// count runs a COUNT(*) query and fails with ErrTooMany above limit.
func (s *DB) count(ctx context.Context, what, q string, limit int, args ...any) error {
	var n int64
	if err := s.db.QueryRowContext(ctx, s.d.rebind(q), args...).Scan(&n); err != nil {
		return s.wrap(err)
	}
	if n > int64(limit) {
		return fmt.Errorf("%w: %s holds %d %s, more than the limit of %d", ErrTooMany, s.name, n, what, limit)
	}
	return nil
}

// pointRow is one row of the points query.
type pointRow struct {
	seriesID, recordID int64
	key                SeriesKey
	better             int
	commit             string
	commitTime         int64
	vals               string
	ratio              [3]sql.NullFloat64
	mde                sql.NullFloat64
}

// Load returns the series matching q, each with its points in commit order
// (see the package doc); series are ordered by machine, mode, benchmark and
// unit. It fails with ErrTooMany beyond the read limits (MaxSeries,
// MaxPointRows, or the Options' lower ones), before reading a point.
func (s *DB) Load(ctx context.Context, q Query) ([]Series, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	where, args := q.where()
	if err := s.count(ctx, "series", `SELECT COUNT(*) FROM series s`+where, s.limits.series, args...); err != nil {
		return nil, err
	}
	if err := s.count(ctx, "point rows", `SELECT COUNT(*) FROM points p JOIN series s ON s.id = p.series_id`+where, s.limits.pointRows, args...); err != nil {
		return nil, err
	}
	mde := "NULL" // a database a reader did not migrate has no mde column
	if s.schema >= mdeVersion {
		mde = "p.mde"
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT s.id, s.benchmark, s.unit, s.machine, s.mode, s.better,
		p.record_id, p.commit_sha, p.commit_time, p.vals, p.ratio, p.ratio_lo, p.ratio_hi, `+mde+`
		FROM points p JOIN series s ON s.id = p.series_id`+where+`
		ORDER BY s.machine, s.mode, s.benchmark, s.unit, s.id, p.commit_time, p.record_id`), args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []Series
	var b seriesBuilder
	for rows.Next() {
		var r pointRow
		var mode string
		if err := rows.Scan(&r.seriesID, &r.key.Benchmark, &r.key.Unit, &r.key.Machine, &mode, &r.better,
			&r.recordID, &r.commit, &r.commitTime, &r.vals, &r.ratio[0], &r.ratio[1], &r.ratio[2], &r.mde); err != nil {
			return nil, s.wrap(err)
		}
		r.key.Mode = Mode(mode)
		if b.id != r.seriesID && b.id != 0 {
			out = append(out, b.finish())
		}
		if err := b.add(r); err != nil {
			return nil, s.wrap(err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	if b.id != 0 {
		out = append(out, b.finish())
	}
	return out, nil
}

// seriesBuilder merges the rows of one series into points, one per commit,
// in the order their commits are first seen.
type seriesBuilder struct {
	id     int64
	series Series
	index  map[string]int
}

func (b *seriesBuilder) add(r pointRow) error {
	if b.id != r.seriesID {
		*b = seriesBuilder{id: r.seriesID, index: map[string]int{},
			series: Series{SeriesKey: r.key, Direction: benchgate.Direction(r.better)}}
	}
	vals, err := parseValues(r.vals)
	if err != nil {
		return err
	}
	key := r.commit
	if key == "" {
		key = fmt.Sprintf("\x00record %d", r.recordID) // unknown commits are never merged
	}
	i, ok := b.index[key]
	if !ok {
		i = len(b.series.Points)
		b.index[key] = i
		b.series.Points = append(b.series.Points, Point{Commit: r.commit})
	}
	p := &b.series.Points[i]
	p.Values = append(p.Values, vals...)
	p.Records++
	if p.CommitTime.IsZero() {
		p.CommitTime = fromUnixNano(r.commitTime)
	}
	if r.ratio[0].Valid {
		p.Ratio, p.RatioLo, p.RatioHi, p.HasRatio = r.ratio[0].Float64, r.ratio[1].Float64, r.ratio[2].Float64, true
		p.MDE, p.HasMDE = r.mde.Float64, r.mde.Valid // a gate run recorded before the MDE was has none
	}
	return nil
}

func (b *seriesBuilder) finish() Series {
	for i := range b.series.Points {
		p := &b.series.Points[i]
		p.Median, p.Lo, p.Hi, p.HasInterval = summarize(p.Values)
	}
	return b.series
}

// Records lists the records' labels in the order recorded. It fails with
// ErrTooMany beyond MaxRecords (or the Options' lower limit).
func (s *DB) Records(ctx context.Context) ([]RecordInfo, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.count(ctx, "records", `SELECT COUNT(*) FROM records`, s.limits.records); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, hash, commit_sha, commit_time, branch, machine, mode, run_id, source,
		recorded_at, length(content) FROM records ORDER BY id`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []RecordInfo
	for rows.Next() {
		var r RecordInfo
		var ct, at int64
		var mode string
		if err := rows.Scan(&r.ID, &r.Hash, &r.Labels.Commit, &ct, &r.Labels.Branch, &r.Labels.Machine, &mode,
			&r.Labels.RunID, &r.Labels.Source, &at, &r.Bytes); err != nil {
			return nil, s.wrap(err)
		}
		r.Labels.Mode, r.Labels.CommitTime, r.RecordedAt = Mode(mode), fromUnixNano(ct), fromUnixNano(at)
		out = append(out, r)
	}
	return out, s.wrap(rows.Err())
}

// Content returns a record's content as written (at most MaxRecordBytes);
// an id the database does not hold is ErrNoRecord.
func (s *DB) Content(ctx context.Context, id int64) ([]byte, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var b []byte
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT content FROM records WHERE id = ?`), id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s holds no record %d", ErrNoRecord, s.name, id)
	}
	return b, s.wrap(err)
}

// SchemaVersion is the database's schema version: after Open, the newest
// this package knows, for a writer.
func (s *DB) SchemaVersion(ctx context.Context) (int, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var v sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v)
	return int(v.Int64), s.wrap(err)
}
