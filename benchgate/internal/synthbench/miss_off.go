//go:build !gatemiss

package synthbench

// missStride is the distance between the probe bytes Chunk.Copy touches in
// successive ops: 0, the same byte every op (a cache hit). A gatemiss build
// sets one cache line: see miss_on.go.
var missStride = 0
