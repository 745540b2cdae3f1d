//go:build unix && !linux

package arena

// hugePageSize is 0: outside Linux, off-heap chunks are not aligned for
// transparent huge pages. Its twin is advise_linux.go.
func hugePageSize() int { return 0 }

// adviseHuge does nothing outside Linux.
func adviseHuge([]byte) {}

// adviseNoHuge does nothing outside Linux.
func adviseNoHuge([]byte) {}

// prefault does nothing outside Linux: pages fault on first touch.
func prefault([]byte) {}

// prefaultHeap does nothing outside Linux: pages fault on first touch.
func prefaultHeap([]byte) {}
