// Package history remembers benchmark results across commits: a database
// of raw benchmark records and the series derived from them, for
// change-point detection (Analyze, through package changepoint).
//
// # Layout
//
// This package is the database and its data model, and what is drawn from
// an analysis: Open returns a *DB (SQLite or PostgreSQL: one concrete type,
// the backend an unexported dialect inside it), Prepare turns a benchmark
// file into a Recording, Analyze finds the change points of loaded series,
// WriteReport writes them as text (a terminal table, GitHub Markdown or
// JSON) and WriteTrendPage as the HTML trend page. Both writers read
// []Analysis and nothing else. benchgate/changepoint, the detection itself,
// is a leaf: it imports nothing of writegc.
//
// The library takes labels as resolved: a commit is stored as given (the
// file's commit: line or the caller's override), never looked up. Resolving
// a revision through git (an abbreviated hash to the full one, a commit's
// time) is the caller's: cmd/benchgate does it before Prepare's labels
// reach the database. Nothing here runs a program, reads a flag, prints or
// exits.
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
// # Stability
//
// Assess judges a series' latest UnstableWindow points: its noise (the
// robust commit-to-commit scatter of their medians) and its verdict flips
// (a move up after one down, or down after up). A series past
// UnstableMaxNoise or UnstableMaxFlips is unstable (Analysis.Stability,
// Unstable): its regressions are to be reported, not failed on, unless the
// user asks otherwise (benchgate history -fail-unstable).
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
// A reader (Options.ReadOnly) writes nothing, ever: its Record and
// RecordPair fail with ErrReadOnly, and below them SQLite opens the file
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
// No call waits without bound. Every DB call (and Open) has a client-side
// deadline (Options.Timeout, DefaultTimeout), so a PostgreSQL server that
// stops answering mid-record fails the call. PostgreSQL connections also
// get ConnectTimeout, StatementTimeout, LockTimeout (which bounds the
// advisory lock migrations take, and row locks) and IdleInTransactionTimeout
// (a frozen writer loses its locks) unless the DSN sets its own. Each
// timeout is ErrTimeout.
//
// # Concurrency
//
// A *DB is safe for use by several goroutines, and several processes may
// record into one database at once without losing a record: each Record is
// one transaction (retried, up to five attempts in all, when PostgreSQL
// aborts it to break a deadlock); SQLite runs in WAL mode with immediate transactions and a
// busy timeout (BusyTimeout) so that writers queue rather than fail (Open
// also waits out another writer creating the same new file), and
// PostgreSQL creates series in a fixed order under its row locks so that two
// writers never deadlock, and serialises migrations with one advisory lock
// whose key never changes. A DB lives from Open to Close. The other types
// (Options, Labels, Recording, Series, Point, Sample, Summary, Analysis)
// are plain values: safe to read from several goroutines, owned by whoever
// holds them; a Recording is not to be changed once given to a DB.
//
// # Limits
//
// Every input is bounded before anything is allocated: a benchmark file
// (MaxRecordBytes, through benchgate.Parser), a DSN (MaxDSNBytes), each label
// (MaxLabelBytes and the per-label limits of Labels.Validate), the number of
// series in one file (MaxSeriesPerRecord) and what Load and Records read
// (MaxSeries, MaxPointRows, MaxRecords: ErrTooMany, checked before the
// rows are read). Options and PrepareOptions can lower these limits, never
// raise them.
//
// # Reports and the trend page
//
// Every name and label in a report comes from benchmark files, so it is
// untrusted: the table escapes control and format characters (Printable),
// Markdown puts anything but plain text in code spans, JSON is encoded by
// encoding/json, and the page's template escapes the rest. Numbers print
// the same on every platform (the JSON rounds to 6 significant digits).
// The trend page is one self-contained HTML file (no network: CSS, SVG
// charts and the small filter script are inline), drawn here so that it
// shows with scripts off; every point is a <circle class="pt"> and every
// chart says how many it holds (data-points), so that a test can check the
// page against the data. The page is written atomically (a temporary file
// in the same directory, synced, then renamed) and holds at most
// MaxPagePoints points, checked before anything is drawn. Both writers are
// plain functions with no state, safe to call from several goroutines (the
// page for different directories).
//
// The manual (commands, flags, worked examples) is docs/history.md in the repository.
package history
