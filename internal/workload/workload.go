// Package workload generates the keys and values every writegc benchmark and
// scenario writes, and parses the sizes and counts users type on the command
// line. Keys are generated before timing starts into one flat buffer, so the
// harness itself adds no pointers for the collector to trace.
//
// Keys is not safe for concurrent mutation; reading Key concurrently is safe.
package workload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// KeySize is the default key length: 16 random bytes.
const KeySize = 16

// Keys is a flat buffer of n fixed-size keys.
type Keys struct {
	buf  []byte
	size int
}

// NewKeys fills a buffer with n pseudo-random keys of size bytes each,
// deterministic in seed (splitmix64). Keys of 8 bytes or more are distinct
// with overwhelming probability; the first 8 bytes of key i are a bijection
// of (seed, i), so they are distinct for certain.
func NewKeys(n, size int, seed uint64) *Keys {
	if size < 8 {
		size = 8
	}
	k := &Keys{buf: make([]byte, n*size), size: size}
	x := seed
	for i := range n {
		b := k.buf[i*size : (i+1)*size]
		binary.BigEndian.PutUint64(b, mix(seed^0x9e3779b97f4a7c15*uint64(i+1)))
		for j := 8; j < size; j += 8 {
			x = mix(x + 0x9e3779b97f4a7c15)
			var t [8]byte
			binary.LittleEndian.PutUint64(t[:], x)
			copy(b[j:], t[:])
		}
	}
	return k
}

// mix is splitmix64's finaliser: a bijection on uint64.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Len returns the number of keys.
func (k *Keys) Len() int { return len(k.buf) / k.size }

// Key returns key i (no copy; do not modify).
func (k *Keys) Key(i int) []byte { return k.buf[i*k.size : (i+1)*k.size : (i+1)*k.size] }

// KeyAt writes the key with sequence number i into dst (len(dst) >= 8),
// without a pre-generated buffer: for runs of billions of keys.
func KeyAt(dst []byte, seed uint64, i uint64) {
	binary.BigEndian.PutUint64(dst, mix(seed^0x9e3779b97f4a7c15*(i+1)))
	for j := 8; j+8 <= len(dst); j += 8 {
		binary.LittleEndian.PutUint64(dst[j:], mix(i+uint64(j)))
	}
}

// Value returns a value of n bytes with a recognisable pattern.
func Value(n int) []byte {
	v := make([]byte, n)
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	return v
}

// ErrSyntax is returned for unparsable sizes and counts.
var ErrSyntax = errors.New("workload: bad number")

// ParseSize parses a byte size: "10", "10B", "1KB", "1KiB", "2MB", "1.5GB".
// K, M, G are binary multiples (1 KB = 1024 B), as in the seed experiments'
// "1 KB" and "10 KB" values.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := 1.0
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, t[:len(t)-1]
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, t[:len(t)-1]
	case strings.HasSuffix(t, "T"):
		mult, t = 1<<40, t[:len(t)-1]
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%w: size %q", ErrSyntax, s)
	}
	return int64(f * mult), nil
}

// ParseCount parses a count: "1000", "100K", "10M", "1G"/"1B" (billion), "1e9".
// Multiples are decimal.
func ParseCount(s string) (int64, error) {
	f, err := ParseDecimal(strings.ToUpper(strings.TrimSpace(s)))
	if err != nil || f < 0 || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("%w: count %q", ErrSyntax, s)
	}
	return int64(math.Round(f)), nil
}

// ParseDecimal parses a finite float with an optional decimal multiple:
// K (10^3), M (10^6), G or B (10^9), T (10^12), upper case. It is the
// number part of a count (ParseCount) and of gcstress's rates ("20K",
// "1.5M"); the error wraps ErrSyntax.
func ParseDecimal(t string) (float64, error) {
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult, t = 1e3, t[:n-1]
		case 'M':
			mult, t = 1e6, t[:n-1]
		case 'G', 'B':
			mult, t = 1e9, t[:n-1]
		case 'T':
			mult, t = 1e12, t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f*mult, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%w: number %q", ErrSyntax, t)
	}
	return f * mult, nil
}

// FormatSize renders a byte count the way benchmark names spell it:
// 10B, 100B, 1KB, 10KB, 2MB.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// FormatCount renders a count as benchmark names spell it: 100K, 1M, 10M.
func FormatCount(n int64) string {
	switch {
	case n >= 1e9 && n%1e9 == 0:
		return fmt.Sprintf("%dG", n/1e9)
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dK", n/1e3)
	}
	return strconv.FormatInt(n, 10)
}
