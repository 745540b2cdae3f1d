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

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver (pure Go)
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
	if err := s.quickCheck(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkSQLiteFile refuses a file that cannot be a whole SQLite database:
// empty, shorter than its header, without the magic string, or shorter than
// the pages its header counts. A missing file is a new database unless
// mustExist.
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
	if fi.Size() == 0 {
		return fmt.Errorf("%w: %s is empty (0 bytes), not a SQLite database; remove it to start a new history", ErrCorrupt, path)
	}
	var h [sqliteHeaderBytes]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Errorf("%w: %s: %d bytes, shorter than a SQLite header: truncated", ErrCorrupt, path, fi.Size())
	}
	if string(h[:len(sqliteMagic)]) != sqliteMagic {
		return fmt.Errorf("%w: %s is not a SQLite database (no SQLite header)", ErrCorrupt, path)
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("%w: %s: page size %d in its header", ErrCorrupt, path, pageSize)
	}
	// The page count is valid when the "version valid for" number equals
	// the change counter.
	if binary.BigEndian.Uint32(h[92:96]) == binary.BigEndian.Uint32(h[24:28]) {
		pages := int64(binary.BigEndian.Uint32(h[28:32]))
		if want := pages * pageSize; fi.Size() < want {
			return fmt.Errorf("%w: %s: %d bytes, its header counts %d pages of %d bytes (%d): truncated",
				ErrCorrupt, path, fi.Size(), pages, pageSize, want)
		}
	}
	return nil
}

// quickCheck runs PRAGMA quick_check: anything but "ok" is ErrCorrupt.
func (s *sqlStore) quickCheck(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA quick_check(10)`)
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
