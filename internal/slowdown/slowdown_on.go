//go:build gateslow

package slowdown

import "os"

// Enabled reports whether the gateslow tag is compiled in.
const Enabled = true

// spins[s] is the number of loop iterations Inject runs at site s.
var spins [NumSites]uint64

// sink is written only when a spin's result hits an (in practice) impossible
// value, so that the loop is not dead code and Inject stores nothing shared.
var sink uint64

func init() {
	var err error
	if spins, err = Parse(os.Getenv(EnvVar)); err != nil {
		panic(err)
	}
}

// spin runs n steps of a dependency chain of one-cycle operations (adds and
// xors), eight per loop iteration: its cost in cycles is fixed by n, with a
// one-cycle grain, and the loop's trip count (n/8, then n%8) stays short
// enough for the branch predictor to learn at the small counts that tiny
// benchmarks need.
//
//go:noinline
func spin(n uint64) {
	x := n
	for i := n / 8; i != 0; i-- {
		x += i
		x ^= i << 1
		x += i << 2
		x ^= i << 3
		x += i << 4
		x ^= i << 5
		x += i << 6
		x ^= i << 7
	}
	for i := n % 8; i != 0; i-- {
		x += i
	}
	if x == 0x9e3779b97f4a7c15 {
		sink = x
	}
}

// Inject runs the configured number of spin iterations for site s.
func Inject(s Site) {
	if n := spins[s]; n != 0 {
		spin(n)
	}
}
