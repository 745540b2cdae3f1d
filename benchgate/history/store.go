package history

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/writegc/writegc/benchgate"
)

// Sentinel errors. Functions wrap them with detail; test with errors.Is.
var (
	// ErrNewerSchema: the database was written by a newer version of this
	// package; it is left untouched.
	ErrNewerSchema = errors.New("history database has a newer schema than this benchgate knows")
	// ErrCorrupt: a SQLite file is truncated, damaged or not a database (or
	// empty, when it must exist). A database that cannot be opened (a
	// missing directory, no permission) is not ErrCorrupt.
	ErrCorrupt = errors.New("history database is corrupt")
	// ErrNoDatabase: Options.MustExist or ReadOnly, and the SQLite file does
	// not exist, or the database holds no benchgate history yet.
	ErrNoDatabase = errors.New("no history database")
	// ErrBadDSN: the DSN is too long or malformed, is neither a PostgreSQL
	// DSN nor a plausible file path (a URL of another scheme), or names
	// something that is not a file (a FIFO, a device, a directory: those
	// errors also wrap inputfile.ErrNotRegular).
	ErrBadDSN = errors.New("bad history database name")
	// ErrForeign: the database holds tables benchgate did not create and
	// not benchgate's; it is left untouched.
	ErrForeign = errors.New("not a benchgate history database")
	// ErrTimeout: the database did not answer within a timeout (Options.Timeout,
	// ConnectTimeout, or the server's StatementTimeout or LockTimeout).
	ErrTimeout = errors.New("history database did not answer in time")
	// ErrBadLabel: a label is too long or holds a newline.
	ErrBadLabel = errors.New("bad record label")
	// ErrMixedMachines: one file holds results of several machines.
	ErrMixedMachines = errors.New("one file from several machines")
	// ErrTooMany: the database holds more series or points than Load reads.
	ErrTooMany = errors.New("history too large to load")
)

// MaxDSNBytes bounds the length of a DSN or file path given to Open.
const MaxDSNBytes = 4096

// Load limits.
const (
	// MaxSeries bounds the series one Load returns.
	MaxSeries = 100_000
	// MaxPointRows bounds the point rows (series × record) one Load reads.
	MaxPointRows = 5_000_000
)

// Store is a history database. Implementations are safe for concurrent use
// by several goroutines and processes (see the package doc); a Store lives
// until Close.
type Store interface {
	// Record stores one prepared record and its points in one transaction.
	Record(ctx context.Context, r *Recording) (Recorded, error)
	// RecordPair stores both sides of an interleaved gate run in one
	// transaction, the head's points with their head/base ratio.
	RecordPair(ctx context.Context, base, head *Recording) (baseRec, headRec Recorded, err error)
	// Load returns the series matching q, each with its points in commit
	// order (see the package doc); series are ordered by machine, mode,
	// benchmark and unit. It fails with ErrTooMany beyond MaxSeries or
	// MaxPointRows.
	Load(ctx context.Context, q Query) ([]Series, error)
	// Records lists the records' labels in the order recorded.
	Records(ctx context.Context) ([]RecordInfo, error)
	// Content returns a record's content as written.
	Content(ctx context.Context, id int64) ([]byte, error)
	// SchemaVersion is the database's schema version after Open.
	SchemaVersion(ctx context.Context) (int, error)
	Close() error
}

// Recorded says what Record did.
type Recorded struct {
	ID int64
	// Duplicate: a record with the same content was already stored (ID is
	// that record's); nothing was written.
	Duplicate bool
	// Series is the number of series the record added a point to.
	Series int
}

// RecordInfo is one stored record, without its content.
type RecordInfo struct {
	ID         int64
	Hash       string
	Labels     Labels
	RecordedAt time.Time
	Bytes      int
}

// Query selects series; an empty field matches all.
type Query struct {
	Machine string
	Mode    Mode
}

// SeriesKey identifies a series.
type SeriesKey struct {
	Benchmark, Unit, Machine string
	Mode                     Mode
}

// Series is one series' points in commit order.
type Series struct {
	SeriesKey
	Direction benchgate.Direction
	Points    []Point
}

// Point is one commit's measurements of a series: every value recorded for
// the commit, merged over its records.
type Point struct {
	Commit     string
	CommitTime time.Time // zero when unknown
	Values     []float64
	Median     float64
	// Lo and Hi bound the median's 95% interval when HasInterval.
	Lo, Hi      float64
	HasInterval bool
	// Ratio is the head/base ratio of the latest gate run whose head was
	// this commit, when HasRatio.
	Ratio, RatioLo, RatioHi float64
	HasRatio                bool
	// Records is the number of records merged into the point.
	Records int
}

// Options configure Open.
type Options struct {
	// MustExist refuses a SQLite path that does not exist (ErrNoDatabase)
	// instead of creating a new database there.
	MustExist bool
	// ReadOnly opens an existing history for reading: nothing is created,
	// migrated or written (SQLite opens the file read-only, PostgreSQL
	// sessions are read-only). It implies MustExist, and a database that
	// holds no benchgate history is ErrNoDatabase (ErrForeign when it holds
	// other tables). Record and RecordPair fail.
	ReadOnly bool
	// Timeout bounds Open and each call of the Store (0: DefaultTimeout),
	// on the client side: a server that stops answering mid-call fails it.
	Timeout time.Duration
}

// DefaultTimeout is the Options.Timeout of a zero Options: long enough for
// the largest record or load (MaxRecordBytes, MaxPointRows).
const DefaultTimeout = 10 * time.Minute

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// BusyTimeout is how long a SQLite writer waits for another one.
const BusyTimeout = 60 * time.Second

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
// driver's; none shows a password (see RedactDSN).
func Open(ctx context.Context, dsn string, o Options) (Store, error) {
	return open(ctx, dsn, o, migrations)
}

func open(ctx context.Context, dsn string, o Options, migs []migration) (Store, error) {
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
	var s *sqlStore
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
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}
