//go:build gatemiss && !linux

package synthbench

// probeSize is the gatemiss probe region's size: see miss_on_linux.go.
const probeSize = 64 << 20

// The probe of a gatemiss build off Linux: a heap allocation (the
// collector's pacing sees it; the instruction counts that matter are
// Linux's, where valgrind runs).
var (
	probe      = make([]byte, probeSize)
	probeMask  = probeSize - 1
	missStride = 64
)
