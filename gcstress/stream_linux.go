package gcstress

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// openStream opens the child's stream descriptor fd (StreamEnv) for
// writing, closed on exec so that a process the engine starts cannot hold
// the parent's pipe open.
func openStream(fd int) (io.Writer, error) {
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "gcstress-stream")
	if f == nil {
		return nil, fmt.Errorf("%w: %s: descriptor %d is not open", ErrChild, StreamEnv, fd)
	}
	if _, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("%w: %s: descriptor %d: %v", ErrChild, StreamEnv, fd, err)
	}
	return f, nil
}
