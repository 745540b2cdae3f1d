package compare

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/writegc/writegc/benchgate"
)

// Read's limits: bench.txt holds a line of about 150 bytes per scenario
// run, so a hundred rounds of the whole matrix are under 1 MiB.
const (
	MaxFileBytes = 8 << 20
	MaxLineBytes = 4 << 10
)

// Series is every value of one unit of one Key, in file order.
type Series struct {
	Key    Key
	Unit   Unit
	Values []float64
}

// File is a bench.txt as read: its series in first-seen order and its
// configuration (the first value of each key). Read-only once returned.
type File struct {
	Path   string
	Series []Series
	Config map[string]string
}

// Find is the series of k and u, nil when the file has none.
func (f *File) Find(k Key, u Unit) *Series {
	for i := range f.Series {
		if f.Series[i].Key == k && f.Series[i].Unit == u {
			return &f.Series[i]
		}
	}
	return nil
}

// Read reads the bench.txt at path with the benchmark-format reader
// (benchgate's bounded parser: the file's size is checked before it is
// read, each line's as it is read). Errors: a missing file is
// fs.ErrNotExist (wrapped); one that is not a regular file (a FIFO, a
// device, a socket, a directory) wraps benchgate.ErrNotRegular and is
// refused before it is read, a FIFO without blocking; a file over MaxFileBytes or with a line over
// MaxLineBytes wraps ErrTooLarge; an empty file, one without result lines,
// with a malformed line or with a benchmark name ParseName refuses wraps
// ErrBadFile. Each names path.
func Read(path string) (*File, error) {
	set, err := benchgate.Parser{MaxBytes: MaxFileBytes, MaxLineBytes: MaxLineBytes}.ParseFiles(path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, benchgate.ErrNotRegular):
		return nil, err
	case errors.Is(err, benchgate.ErrTooLarge):
		return nil, fmt.Errorf("%w (at most %d bytes, lines of at most %d): %w", ErrTooLarge, MaxFileBytes, MaxLineBytes, err)
	default:
		return nil, fmt.Errorf("%w: %s: %w", ErrBadFile, path, err)
	}
	f := &File{Path: path, Config: set.Config}
	for _, bk := range set.Keys {
		k, err := ParseName(bk.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		f.Series = append(f.Series, Series{Key: k, Unit: Unit(bk.Unit), Values: set.Samples[bk]})
	}
	return f, nil
}
