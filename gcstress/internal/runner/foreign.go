package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/writegc/writegc/gcstress/internal/proto"

	"github.com/writegc/writegc/gcstress/results"
)

// writeFileAtomic writes b to path with writeAtomic (the results folder's
// one atomic writer), creating the folder. Errors wrap ErrStream and
// ErrWrite and name path.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", proto.ErrStream, ErrWrite, path, err)
	}
	_, err := WriteAtomic(nil, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("%w: %w", proto.ErrStream, err)
	}
	return nil
}

// keepForeign writes a child's stdout and stderr captures that hold
// anything into dir (none when dir is "") and returns the account.
func keepForeign(dir string, stdout, stderr *Capture, exitedOK bool) (*results.ForeignOutput, error) {
	f := &results.ForeignOutput{StdoutBytes: stdout.Total(), StderrBytes: stderr.Total(), ExitedOK: exitedOK}
	if f.StdoutBytes == 0 && f.StderrBytes == 0 {
		return nil, nil
	}
	if dir == "" {
		return f, nil
	}
	for _, c := range []struct {
		cap  *Capture
		name string
		dst  *string
	}{{stdout, ChildStdoutFile, &f.StdoutFile}, {stderr, ChildStderrFile, &f.StderrFile}} {
		if c.cap.Total() == 0 {
			continue
		}
		p := filepath.Join(dir, c.name)
		if err := writeFileAtomic(p, c.cap.Contents()); err != nil {
			return f, err
		}
		*c.dst = p
	}
	return f, nil
}
