//go:build invariants || race

package arena

// invariants enables costly checks: poisoning of released chunks and a panic
// on any access through a released arena. The race detector's builds (make
// test runs -race) turn them on too.
const invariants = true

// poisonByte fills released chunk memory so stale reads are recognisable.
const poisonByte = 0xdb

// poison fills b by doubling copies, which the race detector checks as
// ranges rather than byte by byte.
func poison(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = poisonByte
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}
