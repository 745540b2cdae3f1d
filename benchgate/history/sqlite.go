package history

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver (pure Go)
)

// sqliteMagic starts every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// sqliteHeaderBytes is the size of a SQLite file's header.
const sqliteHeaderBytes = 100

func openSQLite(ctx context.Context, path string, o Options) (*sqlStore, error) {
	if strings.ContainsAny(path, "?#\x00") {
		return nil, fmt.Errorf("%w: SQLite path %q holds '?', '#' or NUL", ErrBadDSN, path)
	}
	if err := checkSQLiteFile(path, o.MustExist); err != nil {
		return nil, err
	}
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate",
		path, BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &sqlStore{db: db, d: sqliteDialect, name: path}
	// A connection's first statement switches a new database to WAL mode,
	// which SQLite refuses (SQLITE_BUSY, without waiting) while another
	// writer creates the same file: try again until BusyTimeout.
	deadline := time.Now().Add(BusyTimeout)
	for {
		err := s.quickCheck(ctx)
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
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// sqliteBusy is SQLite's primary result code SQLITE_BUSY.
const sqliteBusy = 5

func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteBusy
}

// checkSQLiteFile refuses a file that cannot be a SQLite database: not a
// regular file, shorter than its header, without the magic string, or with
// an impossible page size. A missing file, or an empty one (SQLite's own
// rule), is a new database unless mustExist. A file shorter than its header
// next to a non-empty write-ahead log is another writer's new database,
// whose pages are still in the log: SQLite reads it. Damage past the header
// (a truncated file, a page overwritten) is SQLite's to find: quickCheck.
func checkSQLiteFile(path string, mustExist bool) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if mustExist {
			return fmt.Errorf("%w: %s does not exist", ErrNoDatabase, path)
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, path)
	}
	if fi.Size() < sqliteHeaderBytes {
		if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
			return nil
		}
		switch {
		case fi.Size() == 0 && !mustExist:
			return nil
		case fi.Size() == 0:
			return fmt.Errorf("%w: %s is empty (0 bytes): nothing was ever recorded there, or it was truncated", ErrCorrupt, path)
		}
		return fmt.Errorf("%w: %s: %d bytes, shorter than a SQLite header: truncated", ErrCorrupt, path, fi.Size())
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

// quickCheck runs PRAGMA quick_check: anything but "ok" is ErrCorrupt.
func (s *sqlStore) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(10)`)
	if isBusy(err) {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, s.name, err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, s.name, err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, s.name, err)
	}
	if len(msgs) != 1 || msgs[0] != "ok" {
		return fmt.Errorf("%w: %s: quick_check: %s", ErrCorrupt, s.name, strings.Join(msgs, "; "))
	}
	return nil
}
