package runner

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/writegc/writegc/internal/atomicfile"
)

// Every file of a results folder but samples.jsonl (streamed while the run
// goes) is written by WriteAtomic: a temporary file in the same folder,
// written, fsynced and closed, then renamed over the final name and the
// folder fsynced. A reader sees the earlier file or the whole new one,
// never a part; a failed write leaves no partial file and is an error
// wrapping ErrWrite that names the file.

// ErrWrite: a file of the results folder could not be written (a full
// disk, a read-only folder); the error names the file. The command exits 1.
var ErrWrite = errors.New("results file not written")

// TempFile is what WriteAtomic needs of a temporary file; *os.File is one.
type TempFile interface {
	io.Writer
	Name() string
	Chmod(fs.FileMode) error
	Sync() error
	Close() error
}

// CreateTempFunc creates a new temporary file in dir with os.CreateTemp's
// contract. Tests inject one that fails.
type CreateTempFunc func(dir, pattern string) (TempFile, error)

func osCreateTemp(dir, pattern string) (TempFile, error) { return os.CreateTemp(dir, pattern) }

// FileRecord is what the Manifest keeps of a file a run wrote.
type FileRecord struct {
	Path    string `json:"path"` // slash-separated, relative to the results folder
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256,omitempty"`
	Partial bool   `json:"partial,omitempty"` // still being written (samples.jsonl until the run closes it): no size or digest to check
}

// countingHash counts and hashes what passes through it.
type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// WriteAtomic writes path with write, through a temporary file created by
// create (nil: os.CreateTemp) in path's folder, and returns the file's
// size and SHA-256 (Path is left to the caller). On any error the
// temporary file is removed, path is as it was, and the error wraps
// ErrWrite and names path.
func WriteAtomic(create CreateTempFunc, path string, write func(io.Writer) error) (FileRecord, error) {
	tf, err := prepareAtomic(create, path, write)
	if err != nil {
		return FileRecord{}, err
	}
	return tf.rec, tf.commit()
}

// pendingFile is a temporary file written, synced and closed, waiting to
// be renamed over path (commit) or removed (abort).
type pendingFile struct {
	tmp, path string
	rec       FileRecord
}

// prepareAtomic is WriteAtomic's first half: the temporary file, whole and
// on disk. On error nothing is left.
func prepareAtomic(create CreateTempFunc, path string, write func(io.Writer) error) (*pendingFile, error) {
	if create == nil {
		create = osCreateTemp
	}
	f, err := create(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	tmp := f.Name()
	sum := &countingHash{h: sha256.New()}
	bw := bufio.NewWriterSize(io.MultiWriter(f, sum), 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 would hide reports from the other users of a shared machine
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	return &pendingFile{tmp: tmp, path: path, rec: FileRecord{Size: sum.n, SHA256: hex.EncodeToString(sum.h.Sum(nil))}}, nil
}

// commit renames the temporary file over path and fsyncs the folder.
func (p *pendingFile) commit() error {
	err := os.Rename(p.tmp, p.path)
	if err == nil {
		err = atomicfile.SyncDir(filepath.Dir(p.path))
	}
	if err != nil {
		p.abort() // gone already after a successful rename
		return fmt.Errorf("%w: %s: %w", ErrWrite, p.path, err)
	}
	return nil
}

// abort removes the temporary file.
func (p *pendingFile) abort() { os.Remove(p.tmp) }

// digestFile returns the size and SHA-256 of the regular file at path.
func digestFile(path string) (FileRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileRecord{}, err
	}
	defer f.Close()
	sum := &countingHash{h: sha256.New()}
	if _, err := io.Copy(sum, f); err != nil {
		return FileRecord{}, err
	}
	return FileRecord{Size: sum.n, SHA256: hex.EncodeToString(sum.h.Sum(nil))}, nil
}
