//go:build !gateslow

package slowdown

// Enabled reports whether the gateslow tag is compiled in.
const Enabled = false

// Inject does nothing without the gateslow build tag.
func Inject(Site) {}
