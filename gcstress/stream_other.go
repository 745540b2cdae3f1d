//go:build !linux

package gcstress

import (
	"fmt"
	"io"
	"runtime"
)

// openStream: a stream descriptor is passed on Linux only.
func openStream(fd int) (io.Writer, error) {
	return nil, fmt.Errorf("%w: %s: stream descriptors are not supported on %s", ErrChild, StreamEnv, runtime.GOOS)
}
