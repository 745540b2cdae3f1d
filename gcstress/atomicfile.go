package gcstress

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
)

// Every file of a results folder but samples.jsonl (streamed while the run
// goes) is written by writeAtomic: a temporary file in the same folder,
// written, fsynced and closed, then renamed over the final name and the
// folder fsynced. A reader sees the earlier file or the whole new one,
// never a part; a failed write leaves no partial file and is an error
// wrapping ErrWrite that names the file.

// ErrWrite: a file of the results folder could not be written (a full
// disk, a read-only folder); the error names the file. The command exits 1.
var ErrWrite = errors.New("results file not written")

// tempFile is what writeAtomic needs of a temporary file; *os.File is one.
type tempFile interface {
	io.Writer
	Name() string
	Chmod(fs.FileMode) error
	Sync() error
	Close() error
}

// createTempFunc creates a new temporary file in dir with os.CreateTemp's
// contract. Tests inject one that fails.
type createTempFunc func(dir, pattern string) (tempFile, error)

func osCreateTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }

// fileRecord is what the manifest keeps of a file a run wrote.
type fileRecord struct {
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

// writeAtomic writes path with write, through a temporary file created by
// create (nil: os.CreateTemp) in path's folder, and returns the file's
// size and SHA-256 (Path is left to the caller). On any error the
// temporary file is removed, path is as it was, and the error wraps
// ErrWrite and names path.
func writeAtomic(create createTempFunc, path string, write func(io.Writer) error) (fileRecord, error) {
	if create == nil {
		create = osCreateTemp
	}
	dir := filepath.Dir(path)
	f, err := create(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fileRecord{}, fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
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
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(tmp) // gone already after a successful rename
		return fileRecord{}, fmt.Errorf("%w: %s: %w", ErrWrite, path, err)
	}
	return fileRecord{Size: sum.n, SHA256: hex.EncodeToString(sum.h.Sum(nil))}, nil
}

// digestFile returns the size and SHA-256 of the regular file at path.
func digestFile(path string) (fileRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileRecord{}, err
	}
	defer f.Close()
	sum := &countingHash{h: sha256.New()}
	if _, err := io.Copy(sum, f); err != nil {
		return fileRecord{}, err
	}
	return fileRecord{Size: sum.n, SHA256: hex.EncodeToString(sum.h.Sum(nil))}, nil
}
