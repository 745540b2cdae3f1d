package history

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// dialect is one backend, SQLite or PostgreSQL: what differs between their
// SQL and their behaviour. The DB holds one; nothing outside the package
// sees it.
type dialect struct {
	kind engine
	// dollar: placeholders are $1, $2 (PostgreSQL) instead of ?.
	dollar bool
	// advisoryLock: migrations take the advisory lock migrationLock (the
	// transaction itself serialises them otherwise, as SQLite's immediate
	// transactions do).
	advisoryLock bool
	// Column types.
	id, blob  string
	float, i8 string
}

// engine names a dialect's database.
type engine int

const (
	engineSQLite engine = iota
	enginePostgres
)

// advisoryLockKey is a PostgreSQL advisory lock's key.
type advisoryLockKey int64

// migrationLock is the transaction-level advisory lock that serialises
// migrations between processes on PostgreSQL. Every version of this
// package takes the same key: never change it.
const migrationLock advisoryLockKey = 2026002600

// migrationLockSQL takes migrationLock until the transaction ends.
const migrationLockSQL = `SELECT pg_advisory_xact_lock($1)`

var (
	sqliteDialect = dialect{kind: engineSQLite, id: "INTEGER PRIMARY KEY AUTOINCREMENT", blob: "BLOB", float: "REAL", i8: "INTEGER"}
	pgDialect     = dialect{kind: enginePostgres, dollar: true, advisoryLock: true,
		id: "BIGSERIAL PRIMARY KEY", blob: "BYTEA", float: "DOUBLE PRECISION", i8: "BIGINT"}
)

func (d dialect) postgres() bool { return d.kind == enginePostgres }

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
	// A nullable column: the points recorded before it read NULL (no MDE),
	// and both backends add it without rewriting the table.
	func(d dialect) []string {
		return []string{`ALTER TABLE points ADD COLUMN mde ` + d.float}
	},
}

// mdeVersion is the schema version that added points.mde: the read path
// selects it only from a database at this version or later, so that a
// reader (which never migrates) still reads an older one.
const mdeVersion = 3

// coreTables are the tables of schema version 1. A database is benchgate's
// when it holds all of them (other tables may sit beside them), empty when
// it holds no table at all, and foreign (ErrForeign) otherwise: a writer
// migrates only an empty database or benchgate's, a reader reads only
// benchgate's.
var coreTables = []string{"schema_version", "records", "series", "points"}

// minReadableVersion is the oldest schema version the read path's queries
// work on without migrating; a migration that changes what they need raises
// it (a reader then asks for a writer to migrate the database first).
const minReadableVersion = 1

// Table listing limits: tables read to tell whose a database is, and named
// in an ErrForeign message.
const (
	maxListedTables = 1000
	maxNamedTables  = 10
)

// ownership is whose a database is.
type ownership int

const (
	ownEmpty ownership = iota
	ownBenchgate
	ownForeign
)

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tables lists the database's tables and views (PostgreSQL: of the current
// schema; SQLite: not its own sqlite_ tables), by name, at most
// maxListedTables+1.
func (s *DB) tables(ctx context.Context, q querier) ([]string, error) {
	query := `SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name LIMIT ?`
	if s.d.postgres() {
		query = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name LIMIT ?`
	}
	rows, err := q.QueryContext(ctx, s.d.rebind(query), maxListedTables+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// owner says whose the database is, with its tables.
func (s *DB) owner(ctx context.Context, q querier) (ownership, []string, error) {
	names, err := s.tables(ctx, q)
	if err != nil {
		return 0, nil, s.classify(err)
	}
	if len(names) == 0 {
		return ownEmpty, nil, nil
	}
	for _, t := range coreTables {
		if !slices.Contains(names, t) {
			return ownForeign, names, nil
		}
	}
	return ownBenchgate, names, nil
}

// foreign is the ErrForeign of a database holding tables.
func (s *DB) foreign(tables []string) error {
	var named []string
	for _, t := range tables[:min(len(tables), maxNamedTables)] {
		named = append(named, quoteName(t))
	}
	list := strings.Join(named, ", ")
	if len(tables) > maxNamedTables {
		list += fmt.Sprintf(" and %d more", len(tables)-maxNamedTables)
	}
	return fmt.Errorf("%w: %s holds tables benchgate did not create (%s) and not all of benchgate's (%s); it was left untouched: "+
		"give a new file, or an empty database or schema", ErrForeign, s.name, list, strings.Join(coreTables, ", "))
}

func (s *DB) version(ctx context.Context, q querier) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
		return 0, s.classify(err)
	}
	return int(v.Int64), nil
}

func (s *DB) newer(have, known int) error {
	return fmt.Errorf("%w: %s is at schema version %d, this benchgate knows versions up to %d: use a newer benchgate",
		ErrNewerSchema, s.name, have, known)
}

// checkReadable checks, writing nothing, that the database is a benchgate
// history the read path can read.
func (s *DB) checkReadable(ctx context.Context, migs []migration) error {
	own, tables, err := s.owner(ctx, s.db)
	switch {
	case err != nil:
		return err
	case own == ownEmpty:
		return fmt.Errorf("%w: %s holds no benchgate history yet (no tables): record into it first", ErrNoDatabase, s.name)
	case own == ownForeign:
		return s.foreign(tables)
	}
	v, err := s.version(ctx, s.db)
	switch {
	case err != nil:
		return err
	case v > len(migs):
		return s.newer(v, len(migs))
	case v < minReadableVersion:
		return fmt.Errorf("%w: %s is at schema version %d, older than this benchgate reads (%d): record into it once to migrate it",
			ErrNoDatabase, s.name, v, minReadableVersion)
	}
	return nil
}

// migrate brings the database to len(migs), in one transaction; a database
// at a higher version is ErrNewerSchema, a foreign one ErrForeign.
func (s *DB) migrate(ctx context.Context, migs []migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrap(err)
	}
	defer tx.Rollback()
	if s.d.advisoryLock {
		if _, err := tx.ExecContext(ctx, migrationLockSQL, int64(migrationLock)); err != nil {
			return s.wrap(err)
		}
	}
	own, tables, err := s.owner(ctx, tx)
	if err != nil {
		return err
	}
	have := 0
	switch own {
	case ownForeign:
		return s.foreign(tables)
	case ownBenchgate:
		if have, err = s.version(ctx, tx); err != nil {
			return err
		}
	}
	switch {
	case have > len(migs):
		return s.newer(have, len(migs))
	case have == len(migs) && own == ownBenchgate:
		return nil
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return s.wrap(err)
	}
	for i := have; i < len(migs); i++ {
		for _, stmt := range migs[i](s.d) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return s.wrap(fmt.Errorf("migrating to schema version %d: %w", i+1, err))
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
