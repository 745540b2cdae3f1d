//go:build cgo && race

package engines

// manualCgo: under the race detector with cgo, Pebble's internal/manual
// picks Go memory or C.calloc at random, once per process.
const manualCgo manualAlloc = allocRandom
