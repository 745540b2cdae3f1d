package inputfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var (
	// ErrNotRegular reports an input that is not a regular file (a FIFO, a
	// device, a socket, a directory).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge reports an input over its size limit.
	ErrTooLarge = errors.New("file too large")
)

// File is an open regular file whose reads stop at a size limit. It is not
// safe for concurrent use; Close releases it.
type File struct {
	f     *os.File
	path  string
	limit int64
	read  int64
}

// Open opens path for reading after checking that it is a regular file of at
// most limit bytes (limit > 0). Reading more than limit bytes through the
// returned File fails with ErrTooLarge.
func Open(path string, limit int64) (*File, error) {
	if limit <= 0 {
		panic(fmt.Sprintf("inputfile.Open: limit %d, want > 0", limit))
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = check(path, fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, path: path, limit: limit}, nil
}

// Check reports whether path is a regular file of at most limit bytes without
// opening it: ErrNotRegular, ErrTooLarge, or the error of os.Stat (use
// errors.Is(err, fs.ErrNotExist) for a missing file).
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(path, fi, limit)
}

func check(path string, fi os.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %s, %w", path, kind(fi.Mode()), ErrNotRegular)
	}
	if limit > 0 && fi.Size() > limit {
		return fmt.Errorf("%s: %d bytes, more than the limit of %d: %w", path, fi.Size(), limit, ErrTooLarge)
	}
	return nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file (mode " + m.String() + ")"
	}
}

// Read reads at most the limit; past it, it fails with ErrTooLarge.
func (f *File) Read(p []byte) (int, error) {
	if rest := f.limit + 1 - f.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.read > f.limit {
		return n, fmt.Errorf("%s: more than the limit of %d bytes: %w", f.path, f.limit, ErrTooLarge)
	}
	return n, err
}

// Name is the path the File was opened with.
func (f *File) Name() string { return f.path }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the whole of path, a regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Also returns err so that errors.Is also matches also, when err matches
// target (e.g. Also(err, ErrTooLarge, mypkg.ErrTooLarge), so a package's
// callers keep testing its own sentinel); the message stays err's. Any other
// err, nil included, is returned as it is.
func Also(err, target, also error) error {
	if err == nil || !errors.Is(err, target) {
		return err
	}
	return alsoError{err: err, also: also}
}

type alsoError struct{ err, also error }

func (e alsoError) Error() string   { return e.err.Error() }
func (e alsoError) Unwrap() []error { return []error{e.err, e.also} }
