//go:build gateslow

package slowdown

import (
	"os"
	"sync/atomic"
)

// Enabled reports whether the gateslow tag is compiled in.
const Enabled = true

// amounts[s] is what Inject does at site s.
var amounts [NumSites]Amount

// calls[s] counts the calls of Inject at site s whose Amount has an Every
// above 1 (the others do not count).
var calls [NumSites]atomic.Uint64

func init() {
	var err error
	if amounts, err = Parse(os.Getenv(EnvVar)); err != nil {
		panic(err)
	}
}

// Inject runs the configured spin steps for site s, on the calls its
// Amount fires on.
func Inject(s Site) {
	if n := fire(s); n != 0 {
		Spin(n)
	}
}

// fire returns how many steps this call of site s spins: 0 when the site is
// not slowed or its Every skips this call.
func fire(s Site) uint64 {
	a := &amounts[s]
	if a.Spins == 0 {
		return 0
	}
	if a.Every > 1 && calls[s].Add(1)%a.Every != 0 {
		return 0
	}
	return a.Spins
}
