package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// dialect holds what differs between SQLite and PostgreSQL SQL.
type dialect struct {
	name string
	// dollar: placeholders are $1, $2 (PostgreSQL) instead of ?.
	dollar bool
	// lock serialises migrations between processes ("" when the
	// transaction itself does, as SQLite's immediate transactions do).
	lock      string
	id, blob  string
	float, i8 string
}

var (
	sqliteDialect = dialect{name: "sqlite", id: "INTEGER PRIMARY KEY AUTOINCREMENT", blob: "BLOB", float: "REAL", i8: "INTEGER"}
	pgDialect     = dialect{name: "postgres", dollar: true, lock: "SELECT pg_advisory_xact_lock(2026002600)",
		id: "BIGSERIAL PRIMARY KEY", blob: "BYTEA", float: "DOUBLE PRECISION", i8: "BIGINT"}
)

// rebind rewrites ? placeholders for the dialect (the queries hold no ?
// inside string literals).
func (d dialect) rebind(q string) string {
	if !d.dollar {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// migration is one schema version's statements.
type migration func(d dialect) []string

// migrations: migrations[i] takes a database from version i to i+1. Append
// only; never edit a released one.
var migrations = []migration{
	func(d dialect) []string {
		return []string{
			`CREATE TABLE records (
				id ` + d.id + `,
				hash TEXT NOT NULL UNIQUE,
				commit_sha TEXT NOT NULL,
				commit_time ` + d.i8 + ` NOT NULL,
				branch TEXT NOT NULL,
				machine TEXT NOT NULL,
				mode TEXT NOT NULL,
				run_id TEXT NOT NULL,
				source TEXT NOT NULL,
				recorded_at ` + d.i8 + ` NOT NULL,
				content ` + d.blob + ` NOT NULL)`,
			`CREATE TABLE series (
				id ` + d.id + `,
				benchmark TEXT NOT NULL,
				unit TEXT NOT NULL,
				machine TEXT NOT NULL,
				mode TEXT NOT NULL,
				better INTEGER NOT NULL,
				UNIQUE (benchmark, unit, machine, mode))`,
			`CREATE TABLE points (
				record_id ` + d.i8 + ` NOT NULL REFERENCES records(id),
				series_id ` + d.i8 + ` NOT NULL REFERENCES series(id),
				commit_sha TEXT NOT NULL,
				commit_time ` + d.i8 + ` NOT NULL,
				n INTEGER NOT NULL,
				vals TEXT NOT NULL,
				median ` + d.float + ` NOT NULL,
				lo ` + d.float + `, hi ` + d.float + `,
				ratio ` + d.float + `, ratio_lo ` + d.float + `, ratio_hi ` + d.float + `,
				PRIMARY KEY (record_id, series_id))`,
		}
	},
	func(d dialect) []string {
		return []string{
			`CREATE INDEX points_by_series ON points (series_id, commit_time, record_id)`,
			`CREATE INDEX records_by_commit ON records (commit_sha)`,
		}
	},
}

// migrate brings the database to len(migs), in one transaction; a database
// at a higher version is ErrNewerSchema.
func (s *sqlStore) migrate(ctx context.Context, migs []migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	defer tx.Rollback()
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return s.wrap(err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return s.wrap(err)
	}
	var v sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
		return s.wrap(err)
	}
	have := int(v.Int64)
	switch {
	case have > len(migs):
		return fmt.Errorf("%w: %s is at schema version %d, this benchgate knows versions up to %d: use a newer benchgate",
			ErrNewerSchema, s.name, have, len(migs))
	case have == len(migs):
		return nil
	}
	for i := have; i < len(migs); i++ {
		for _, stmt := range migs[i](s.d) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: migrating to schema version %d: %w", s.name, i+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
		return s.wrap(err)
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO schema_version (version) VALUES (?)`), len(migs)); err != nil {
		return s.wrap(err)
	}
	return s.wrap(tx.Commit())
}
