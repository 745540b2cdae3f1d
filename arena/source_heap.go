//go:build !unix

package arena

// offHeapAvailable reports whether off-heap chunks really live outside the Go
// heap on this platform. Here mmap is not available, so "off-heap" chunks fall
// back to the Go heap; pools say so in Stats.OffHeapFallback. Its twin is
// source_mmap.go.
const offHeapAvailable = false

// offHeapAlloc falls back to an on-heap chunk.
func offHeapAlloc(n int, _ offHeapPolicy) ([]byte, error) { return heapSource(n), nil }

// offHeapFree drops the reference; the garbage collector frees the chunk.
func offHeapFree([]byte) error { return nil }

// prefaultHeap does nothing here: pages fault on first touch.
func prefaultHeap([]byte) {}
