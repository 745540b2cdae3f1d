package history

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver (pure Go)

	"github.com/writegc/writegc/internal/inputfile"
)

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// sqliteHeaderBytes is the size of a SQLite file's header.
const sqliteHeaderBytes = 100

// sqliteOpenRetry is how often Open retries while another writer creates
// the same new database.
const sqliteOpenRetry = 20 * time.Millisecond

func openSQLite(ctx context.Context, path string, o Options) (*DB, error) {
	if strings.ContainsAny(path, "?#\x00") {
		return nil, badDSN(path, "a SQLite path holding '?', '#' or NUL")
	}
	if err := checkSQLiteFile(path, o.MustExist); err != nil {
		return nil, err
	}
	dsn, err := sqliteDSN(path, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := newDB(db, sqliteDialect, path, "", o)
	ctx, cancel := s.bound(ctx)
	defer cancel()
	// Switching a new database to WAL mode is refused (SQLITE_BUSY, without
	// waiting) while another writer creates the same file: try again until
	// BusyTimeout.
	deadline := time.Now().Add(BusyTimeout)
	for {
		err := s.prepareSQLite(ctx, o.ReadOnly)
		if err == nil {
			return s, nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			db.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			db.Close()
			return nil, ctx.Err()
		case <-time.After(sqliteOpenRetry):
		}
	}
}

// prepareSQLite checks the database (quickCheck) and, for a writer, that it
// is empty or benchgate's before switching it to WAL mode: a foreign
// database is refused before anything is written to it.
func (s *DB) prepareSQLite(ctx context.Context, readOnly bool) error {
	if err := s.quickCheck(ctx); err != nil || readOnly {
		return err
	}
	own, tables, err := s.owner(ctx, s.db)
	if err != nil {
		return err
	}
	if own == ownForeign {
		return s.foreign(tables)
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode); err != nil {
		return s.classify(err)
	}
	return nil
}

// sqliteDSN is the driver's name of path. A writer opens path itself
// (created when missing); a reader opens it through a file: URI with
// mode=ro and query_only, so that nothing can write to it.
func sqliteDSN(path string, readOnly bool) (string, error) {
	params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)", BusyTimeout.Milliseconds())
	if !readOnly {
		return path + "?" + params + "&_txlock=immediate", nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p}
	return u.String() + "?mode=ro&" + params + "&_query_only=1", nil
}

// SQLite primary result codes.
const (
	sqliteBusy    = 5
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return -1
}

func isBusy(err error) bool { return sqliteCode(err) == sqliteBusy }

// isCorrupt reports SQLite's own verdict that a file is damaged or not a
// database; any other failure (cannot open, read-only, I/O) is not.
func isCorrupt(err error) bool {
	c := sqliteCode(err)
	return c == sqliteCorrupt || c == sqliteNotADB
}

// classify names the database in a driver error: ErrCorrupt when SQLite
// says the file is damaged, else as wrap does, with a hint when a SQLite
// file cannot be created because its directory is missing.
func (s *DB) classify(err error) error {
	if isCorrupt(err) {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, s.name, err)
	}
	if !s.d.postgres() {
		if _, derr := os.Stat(filepath.Dir(s.name)); errors.Is(derr, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w (its directory %s does not exist)", s.name, err, filepath.Dir(s.name))
		}
	}
	return s.wrap(err)
}

// noSizeLimit is the inputfile limit of a database file: it is not read
// whole, only its header.
const noSizeLimit = 1 << 62

// sqliteSiblings are the files SQLite opens beside a database.
var sqliteSiblings = []string{"-wal", "-shm", "-journal"}

// checkSQLiteFile refuses a file that cannot be a SQLite database, without
// blocking: not a regular file (a FIFO, a device, a directory: ErrBadDSN
// and inputfile.ErrNotRegular; the same for the -wal, -shm and -journal
// files SQLite would open beside it), shorter than its header, without the
// magic string, or with an impossible page size. A missing file, or an
// empty one (SQLite's own rule), is a new database unless mustExist. A file
// shorter than its header next to a non-empty write-ahead log is another
// writer's new database, whose pages are still in the log: SQLite reads it.
// Damage past the header (a truncated file, a page overwritten) is SQLite's
// to find: quickCheck.
func checkSQLiteFile(path string, mustExist bool) error {
	for _, sib := range sqliteSiblings {
		if err := inputfile.Check(path+sib, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return notAFile(path+sib, err)
		}
	}
	f, err := inputfile.Open(path, noSizeLimit)
	if errors.Is(err, fs.ErrNotExist) {
		if mustExist {
			return fmt.Errorf("%w: %s does not exist", ErrNoDatabase, path)
		}
		return nil
	}
	if err != nil {
		return notAFile(path, err)
	}
	defer f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Size() < sqliteHeaderBytes {
		return checkShortFile(path, fi.Size(), mustExist)
	}
	var h [sqliteHeaderBytes]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if string(h[:len(sqliteMagic)]) != sqliteMagic {
		return fmt.Errorf("%w: %s is not a SQLite database (no SQLite header)", ErrCorrupt, path)
	}
	pageSize := int(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%w: %s: page size %d in its header", ErrCorrupt, path, pageSize)
	}
	return nil
}

// notAFile is the error of a -db path that is not a regular file.
func notAFile(path string, err error) error {
	if errors.Is(err, inputfile.ErrNotRegular) {
		return fmt.Errorf("%w: %w: want a SQLite database file", ErrBadDSN, err)
	}
	return err
}

func checkShortFile(path string, size int64, mustExist bool) error {
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return nil
	}
	switch {
	case size == 0 && !mustExist:
		return nil
	case size == 0:
		return fmt.Errorf("%w: %s is empty (0 bytes): nothing was ever recorded there, or it was truncated", ErrCorrupt, path)
	}
	return fmt.Errorf("%w: %s: %d bytes, shorter than a SQLite header: truncated", ErrCorrupt, path, size)
}

// quickCheck runs PRAGMA quick_check: anything but "ok", or SQLite's
// verdict that the file is damaged, is ErrCorrupt.
func (s *DB) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(10)`)
	if err != nil {
		return s.classify(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return s.classify(err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return s.classify(err)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return fmt.Errorf("%w: %s: quick_check: %s", ErrCorrupt, s.name, strings.Join(msgs, "; "))
	}
	return nil
}
