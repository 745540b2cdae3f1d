//go:build unix

package arena

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// offHeapAvailable reports whether off-heap chunks really live outside the Go
// heap on this platform. Its twin in source_heap.go says false.
const offHeapAvailable = true

// offHeapAlloc maps n bytes of anonymous private memory outside the Go heap.
// The kernel zero-fills pages on first touch; nothing is touched here.
func offHeapAlloc(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("arena: mmap %d bytes: %w", n, err)
	}
	return b, nil
}

// offHeapFree unmaps memory returned by offHeapAlloc.
func offHeapFree(b []byte) error {
	if err := unix.Munmap(b); err != nil {
		return fmt.Errorf("arena: munmap %d bytes: %w", len(b), err)
	}
	return nil
}
