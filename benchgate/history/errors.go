package history

import "errors"

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
	// ErrBadName: a benchmark name or unit is too long, holds NUL or is not
	// valid UTF-8; both backends refuse it, before anything is written.
	ErrBadName = errors.New("bad benchmark name")
	// ErrMixedMachines: one file holds results of several machines.
	ErrMixedMachines = errors.New("one file from several machines")
	// ErrTooMany: the database holds more series, points or records than
	// Load or Records reads (see Options.MaxSeries).
	ErrTooMany = errors.New("history too large to load")
	// ErrReadOnly: Record or RecordPair on a DB opened Options.ReadOnly.
	ErrReadOnly = errors.New("history database opened read-only")
	// ErrNoRecord: Content of a record id the database does not hold.
	ErrNoRecord = errors.New("no such record")
)
