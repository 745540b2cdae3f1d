// Package history remembers benchmark results across commits: a store of raw
// benchmark records and the series derived from them, for change-point
// detection (package changepoint) and the trend page (package trendpage).
//
// # Data model
//
// A record is one benchmark file as written (benchfmt text with its
// configuration lines), kept byte for byte, with its labels: commit, commit
// time, branch, machine fingerprint, measurement mode, run id and source.
// Records are identified by the SHA-256 of their content: recording the same
// content twice stores it once (the second Record reports Duplicate).
//
// A series is benchmark × unit × machine fingerprint × mode: results from
// different machines or modes are never mixed. Each record adds one point
// row per series it measures: all its values, their median and the 95%
// confidence interval of the median, and, for the head side of an
// interleaved gate run (RecordPair), the head/base ratio of the medians with
// a conservative interval (head's low end over base's high end, head's high
// end over base's low end). Load merges the rows of one commit into one
// Point and orders the points by commit time, then by the order recorded; a
// commit whose time is unknown sorts before those with one.
//
// # Backends
//
// Open takes a file path (SQLite, through the pure-Go driver
// modernc.org/sqlite: no cgo), a postgres:// or postgresql:// URL, or
// libpq's key=value form ("host=db user=ci dbname=bench", whose first key is
// a libpq keyword) (PostgreSQL, through pgx's database/sql driver). Anything
// else that looks like a DSN (a URL of another scheme such as
// postgresql+psycopg:// or postgres:/, a SQLite file: URI, a key=value
// string of unknown keys) is refused (ErrBadDSN), never taken for a new
// SQLite file named after it. No error or message shows a password
// (RedactDSN). Both backends run the same SQL and the same test suite, and
// accept and refuse the same names: a benchmark name or unit that is too
// long, holds NUL or is not valid UTF-8 is ErrBadName before anything is
// written.
//
// A schema_version table holds the schema's version. A writer applies the
// migrations a database lacks, but only to an empty database or one holding
// benchgate's tables; another application's database is ErrForeign and is
// left untouched (it is checked before SQLite's journal is switched to WAL).
// A reader (Options.ReadOnly) writes nothing, ever: SQLite opens the file
// read-only, PostgreSQL sessions are read-only, and nothing is migrated. A
// database written by a newer version is refused (ErrNewerSchema). A SQLite
// path that is a FIFO, a device or a directory is refused without opening it
// (ErrBadDSN). A SQLite file that is truncated, damaged or not a database is
// refused with an error naming it (ErrCorrupt), never read as an empty
// history; one that cannot be opened (a missing directory, no permission)
// is an error but not ErrCorrupt; an empty file is a new database to a
// writer (SQLite's own rule) and ErrCorrupt to a reader.
//
// # Timeouts
//
// No call waits without bound. Every Store call (and Open) has a client-side
// deadline (Options.Timeout, DefaultTimeout), so a PostgreSQL server that
// stops answering mid-record fails the call. PostgreSQL connections also
// get ConnectTimeout, StatementTimeout, LockTimeout (which bounds the
// advisory lock migrations take, and row locks) and IdleInTransactionTimeout
// (a frozen writer loses its locks) unless the DSN sets its own. Each
// timeout is ErrTimeout.
//
// # Concurrency
//
// A Store is safe for use by several goroutines, and several processes may
// record into one database at once without losing a record: each Record is
// one transaction; SQLite runs in WAL mode with immediate transactions and a
// busy timeout (BusyTimeout) so that writers queue rather than fail (Open
// also waits out another writer creating the same new file), and
// PostgreSQL creates series in a fixed order under its row locks so that two
// writers never deadlock.
//
// # Limits
//
// Every input is bounded before anything is allocated: a benchmark file
// (MaxRecordBytes, through benchgate.Parser), a DSN (MaxDSNBytes), each label
// (MaxLabelBytes and the per-label limits of Labels.Validate), the number of
// series in one file (MaxSeriesPerRecord) and what Load reads (MaxSeries,
// MaxPointRows).
package history
