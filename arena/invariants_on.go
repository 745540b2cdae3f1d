//go:build invariants

package arena

// invariants enables costly checks: poisoning of released chunks and a panic
// on any access through a released arena.
const invariants = true

// poisonByte fills released chunk memory so stale reads are recognisable.
const poisonByte = 0xdb

func poison(b []byte) {
	for i := range b {
		b[i] = poisonByte
	}
}
