//go:build !gatemiss

package synthbench

// The probe of a normal build: Chunk.Copy reads the same byte every op (a
// cache hit). A gatemiss build sets a cache line's stride over a large
// region: see miss_on_linux.go.
var (
	probeSmall [64]byte
	probe      = probeSmall[:]
	probeMask  = len(probeSmall) - 1
	missStride = 0
)
