package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// KeyDist is how a mixed workload picks the key of a read, update, scan or
// read-modify-write among the records it holds (gcstress -keydist). The
// values are the flag's and summary.json's strings and do not change.
type KeyDist string

// Key distributions.
const (
	// DistZipfian: YCSB's scrambled zipfian. Rank r is drawn with
	// probability proportional to 1/(r+1)^theta, then hashed onto the
	// records, so the hot keys are not the first inserted (nor, since keys
	// are KeyAt's hashes of their index, in one region).
	DistZipfian KeyDist = "zipfian"
	// DistUniform: every record equally likely.
	DistUniform KeyDist = "uniform"
	// DistLatest: YCSB's skewed-latest: the zipfian rank counted back from
	// the latest insert, so the newest records are the hottest.
	DistLatest KeyDist = "latest"
)

// KeyDists lists the distributions, in the order the flag's help gives them.
func KeyDists() []KeyDist { return []KeyDist{DistZipfian, DistUniform, DistLatest} }

// DefaultZipfTheta is YCSB's zipfian constant, the skew of every zipfian
// and latest distribution unless another is given.
const DefaultZipfTheta = 0.99

// MaxZipfItems bounds a Zipf's item count: its zeta sum costs one math.Pow
// per item (about 2 s at 10^8 here), computed once per scenario.
const MaxZipfItems = 100_000_000

// Sentinel errors of the distributions.
var (
	ErrKeyDist = errors.New("unknown key distribution")
	ErrTheta   = errors.New("zipfian theta out of range")
	ErrItems   = errors.New("zipfian item count out of range")
)

// ParseKeyDist parses a -keydist value.
func ParseKeyDist(s string) (KeyDist, error) {
	for _, d := range KeyDists() {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w %q (known: zipfian, uniform, latest)", ErrKeyDist, s)
}

// CheckZipfTheta reports whether theta is a zipfian constant the
// generator can draw from: strictly between 0 and 1 (at 1 the formula's
// exponent 1/(1-theta) is infinite; at 0 the distribution is uniform: use
// DistUniform).
func CheckZipfTheta(theta float64) error {
	if !(theta > 0 && theta < 1) {
		return fmt.Errorf("%w: %v: use a value in (0, 1), e.g. %v", ErrTheta, theta, DefaultZipfTheta)
	}
	return nil
}

// Zipf draws ranks 0..n-1 with P(r) proportional to 1/(r+1)^theta, by
// the method of Gray et al., "Quickly generating billion-record synthetic
// databases" (SIGMOD 1994), as YCSB's ZipfianGenerator. A Zipf is
// immutable once built and safe for concurrent use; each goroutine brings
// its own random source.
type Zipf struct {
	n                        uint64
	theta, alpha, zetan, eta float64
	half                     float64 // 1 + 0.5^theta
}

// NewZipf prepares a zipfian over n items (1 to MaxZipfItems) with skew
// theta (CheckZipfTheta).
func NewZipf(n uint64, theta float64) (*Zipf, error) {
	if err := CheckZipfTheta(theta); err != nil {
		return nil, err
	}
	if n < 1 || n > MaxZipfItems {
		return nil, fmt.Errorf("%w: %d: use 1 to %d", ErrItems, n, MaxZipfItems)
	}
	z := &Zipf{n: n, theta: theta, alpha: 1 / (1 - theta), half: 1 + math.Pow(0.5, theta)}
	z.zetan = zeta(n, theta)
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta(2, theta)/z.zetan)
	return z, nil
}

func zeta(n uint64, theta float64) float64 {
	var s float64
	for i := uint64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// Rank maps u, uniform in [0, 1), to a rank in [0, n).
func (z *Zipf) Rank(u float64) uint64 {
	uz := u * z.zetan
	switch {
	case uz < 1:
		return 0
	case uz < z.half:
		return min(1, z.n-1)
	}
	r := uint64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(r, z.n-1)
}

// Chooser picks record indexes under a KeyDist over the n records a
// workload preloaded (uniform, zipfian) or counting back from the latest
// insert (latest). Immutable and safe for concurrent use; each goroutine
// passes its own *rand.Rand.
type Chooser struct {
	dist KeyDist
	n    uint64
	z    *Zipf // nil for DistUniform
}

// NewChooser prepares dist over n records (at least 1) with zipfian skew
// theta (ignored by DistUniform).
func NewChooser(dist KeyDist, n uint64, theta float64) (*Chooser, error) {
	if _, err := ParseKeyDist(string(dist)); err != nil {
		return nil, err
	}
	c := &Chooser{dist: dist, n: n}
	if n < 1 {
		return nil, fmt.Errorf("%w: %d records", ErrItems, n)
	}
	if dist != DistUniform {
		z, err := NewZipf(n, theta)
		if err != nil {
			return nil, err
		}
		c.z = z
	}
	return c, nil
}

// Next is a record index: in [0, n) for uniform and zipfian, in
// [0, latest) for latest (latest is how many records exist now, at least
// n; the zipfian rank counted back from the newest, folded into range).
func (c *Chooser) Next(r *rand.Rand, latest uint64) uint64 {
	switch c.dist {
	case DistUniform:
		return r.Uint64N(c.n)
	case DistLatest:
		latest = max(latest, 1)
		return latest - 1 - c.z.Rank(r.Float64())%latest
	}
	return scramble(c.z.Rank(r.Float64())) % c.n
}

// scramble spreads zipfian ranks over the records (YCSB hashes them with
// FNV; splitmix64's finaliser is as good a bijection here).
func scramble(rank uint64) uint64 { return mix(rank ^ 0x5bd1e9955bd1e995) }
