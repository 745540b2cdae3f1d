package testkit

import (
	"net"
	"syscall"
	"testing"
)

// fifo makes a named pipe at path.
func fifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// socket makes a listening Unix socket at path, closed when the test ends.
func socket(t testing.TB, path string) error {
	l, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	t.Cleanup(func() { l.Close() })
	return nil
}
