//go:build !cgo

package engines

// manualCgo: Pebble's internal/manual allocates Go memory in this build,
// make([]byte, n) without cgo (manual_nocgo.go).
const manualCgo manualAlloc = allocGo
