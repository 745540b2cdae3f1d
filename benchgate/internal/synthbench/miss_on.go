//go:build gatemiss

package synthbench

// missStride with the gatemiss tag is one cache line: each op touches a
// line no op touched before, a first-level and a last-level miss per op,
// with the very same instructions as the untagged build (only this variable
// differs). scripts/calibrate-instructions uses it to check that the miss
// units of the instruction mode see a change no instruction count shows.
var missStride = 64
