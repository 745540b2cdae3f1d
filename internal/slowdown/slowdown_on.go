//go:build gateslow

package slowdown

import "os"

// Enabled reports whether the gateslow tag is compiled in.
const Enabled = true

// spins[s] is the number of loop iterations Inject runs at site s.
var spins [NumSites]uint64

func init() {
	var err error
	if spins, err = Parse(os.Getenv(EnvVar)); err != nil {
		panic(err)
	}
}

// Inject runs the configured number of spin iterations for site s.
func Inject(s Site) {
	if n := spins[s]; n != 0 {
		Spin(n)
	}
}
