//go:build cgo && !race

package engines

// manualCgo: Pebble's internal/manual allocates with C.calloc in this
// build (manual_cgo.go).
const manualCgo manualAlloc = allocC
