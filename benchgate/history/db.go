package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MaxDSNBytes bounds the length of a DSN or file path given to Open.
const MaxDSNBytes = 4096

// Read limits: the most one Load or Records call reads. Options can lower
// them, never raise them.
const (
	// MaxSeries bounds the series one Load returns.
	MaxSeries = 100_000
	// MaxPointRows bounds the point rows (series × record) one Load reads.
	MaxPointRows = 5_000_000
	// MaxRecords bounds what Records lists.
	MaxRecords = 1_000_000
)

// DefaultTimeout is the Options.Timeout of a zero Options: long enough for
// the largest record or load (MaxRecordBytes, MaxPointRows).
const DefaultTimeout = 10 * time.Minute

// BusyTimeout is how long a SQLite writer waits for another one.
const BusyTimeout = 60 * time.Second

// Options configure Open. The zero value is a writer with the package's
// defaults and limits. Options is a plain value, copied by Open.
type Options struct {
	// MustExist refuses a SQLite path that does not exist (ErrNoDatabase)
	// instead of creating a new database there.
	MustExist bool
	// ReadOnly opens an existing history for reading: nothing is created,
	// migrated or written (SQLite opens the file read-only, PostgreSQL
	// sessions are read-only). It implies MustExist, and a database that
	// holds no benchgate history is ErrNoDatabase (ErrForeign when it holds
	// other tables). Record and RecordPair fail with ErrReadOnly.
	ReadOnly bool
	// Timeout bounds Open and each call of the DB (0: DefaultTimeout), on
	// the client side: a server that stops answering mid-call fails it.
	Timeout time.Duration
	// MaxSeries, MaxPointRows and MaxRecords lower the read limits of the
	// same names (0, or more than the package's limit: the package's).
	MaxSeries, MaxPointRows, MaxRecords int
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// limit is the lower of a limit and an Options field that lowers it.
func limit(opt, max int) int {
	if opt > 0 && opt < max {
		return opt
	}
	return max
}

// readLimits are the read limits of one DB.
type readLimits struct {
	series, pointRows, records int
}

func (o Options) limits() readLimits {
	return readLimits{limit(o.MaxSeries, MaxSeries), limit(o.MaxPointRows, MaxPointRows), limit(o.MaxRecords, MaxRecords)}
}

// DB is an open history database, SQLite or PostgreSQL (see Open). A DB is
// safe for use by several goroutines at once, and several processes may use
// one database at once (see the package doc). It holds a pool of
// connections from Open until Close; every call is bounded by
// Options.Timeout and reads at most the Options' read limits.
type DB struct {
	db *sql.DB
	d  dialect
	// name is the database in messages: the SQLite path, or PostgreSQL's
	// host, port and database.
	name string
	// password is scrubbed from every message (see scrubError).
	password string
	timeout  time.Duration
	readOnly bool
	limits   readLimits
	// schema is the database's schema version once opened: what the read
	// path may select (see mdeVersion).
	schema int
}

// IsPostgres reports whether dsn names a PostgreSQL database: a
// postgres:// or postgresql:// URL, or libpq's key=value form (its first key
// a libpq connection keyword: host=, dbname=, user=, ...).
func IsPostgres(dsn string) bool {
	k, err := classifyDSN(dsn)
	return err == nil && k != dsnSQLite
}

// Open opens the history database dsn: a postgres:// or postgresql:// URL,
// libpq's key=value form, or a SQLite file path (see IsPostgres; a URL of
// any other scheme is refused). A writer (not Options.ReadOnly) creates a
// new database and migrates an old one, but only an empty one or one that
// holds benchgate's tables: a database of another application is
// ErrForeign, left untouched. Errors wrap ErrBadDSN, ErrNoDatabase,
// ErrCorrupt, ErrForeign, ErrNewerSchema or ErrTimeout, or are the
// driver's; none shows a password (see RedactDSN). The caller must Close
// the DB.
func Open(ctx context.Context, dsn string, o Options) (*DB, error) {
	return open(ctx, dsn, o, migrations)
}

func open(ctx context.Context, dsn string, o Options, migs []migration) (*DB, error) {
	if len(dsn) > MaxDSNBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrBadDSN, len(dsn), MaxDSNBytes)
	}
	if dsn == "" {
		return nil, fmt.Errorf("%w: empty", ErrBadDSN)
	}
	kind, err := classifyDSN(dsn)
	if err != nil {
		return nil, err
	}
	if o.ReadOnly {
		o.MustExist = true
	}
	var s *DB
	if kind == dsnSQLite {
		s, err = openSQLite(ctx, dsn, o)
	} else {
		s, err = openPostgres(ctx, dsn, o)
	}
	if err != nil {
		return nil, err
	}
	bctx, cancel := s.bound(ctx)
	defer cancel()
	if o.ReadOnly {
		err = s.checkReadable(bctx, migs)
	} else {
		err = s.migrate(bctx, migs)
	}
	if err == nil {
		s.schema, err = s.version(bctx, s.db)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// newDB is the DB of a database/sql handle, before it is checked.
func newDB(db *sql.DB, d dialect, name, password string, o Options) *DB {
	return &DB{db: db, d: d, name: name, password: password, timeout: o.timeout(), readOnly: o.ReadOnly, limits: o.limits()}
}

// Close closes the database's connections; calls after it fail. It is safe
// to call more than once.
func (s *DB) Close() error { return s.db.Close() }

// bound gives ctx the DB's deadline: a server that stops answering fails
// the call instead of hanging it.
func (s *DB) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// wrap names the database in a driver error, marks a timeout with
// ErrTimeout, and keeps passwords out of the message.
func (s *DB) wrap(err error) error {
	if err == nil {
		return nil
	}
	if isTimeout(err) && !errors.Is(err, context.Canceled) {
		return scrubError(fmt.Errorf("%s: %w (%s): %w", s.name, ErrTimeout, s.timeoutHint(), err), s.password)
	}
	return scrubError(fmt.Errorf("%s: %w", s.name, err), s.password)
}

// timeoutHint says which limits apply and how to raise them.
func (s *DB) timeoutHint() string {
	if s.d.postgres() {
		return fmt.Sprintf("limits: %v per call; the DSN's connect_timeout, statement_timeout and lock_timeout raise the server's", s.timeout)
	}
	return fmt.Sprintf("limit: %v per call", s.timeout)
}
