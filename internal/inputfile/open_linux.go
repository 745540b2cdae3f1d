package inputfile

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only with O_NONBLOCK, so that a FIFO with no
// writer returns at once instead of blocking (the caller then refuses it).
// O_NONBLOCK has no effect on reads of regular files.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
