//go:build gatemiss && linux

package synthbench

import "syscall"

// probeSize is the gatemiss probe region's size (a power of two): one line
// an op, 1M ops before it wraps.
const probeSize = 64 << 20

// The probe of a gatemiss build: each op reads a line no op read before, a
// first-level and a last-level miss per op, with the very same instructions
// as a normal build (only these variables differ).
// scripts/calibrate-instructions uses it to check that the instruction
// mode's miss units see a change no instruction count shows. The region is
// an anonymous mapping, invisible to the collector.
var (
	probe      = mapProbe()
	probeMask  = probeSize - 1
	missStride = 64
)

func mapProbe() []byte {
	b, err := syscall.Mmap(-1, 0, probeSize, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		panic("synthbench: mapping the gatemiss probe: " + err.Error()) // a test-only build
	}
	return b
}
