//go:build unix

package history

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/writegc/writegc/internal/inputfile"
)

// TestNotAFile: a -db path (or the -wal beside it) that is a FIFO, a device
// or a directory is refused at once, neither opened nor waited on.
func TestNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	walFIFO := filepath.Join(dir, "w.db")
	if err := syscall.Mkfifo(walFIFO+"-wal", 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, walFIFO, "/dev/null", dir} {
		for _, o := range []Options{{}, {ReadOnly: true}} {
			err := openErr(t, path, o)
			if !errors.Is(err, ErrBadDSN) || !errors.Is(err, inputfile.ErrNotRegular) {
				t.Errorf("Open(%s, %+v): %v, want ErrBadDSN and inputfile.ErrNotRegular", path, o, err)
			}
		}
	}
}
