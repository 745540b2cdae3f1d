package gcstress

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// RateUnit is what a Rate counts per second.
type RateUnit uint8

// Rate units.
const (
	RateMBps RateUnit = iota + 1 // key+value MB per second, MB = 10^6 B (bytesPerMB)
	RatePuts                     // Puts per second
)

// MaxRate bounds a Rate: 100 GB/s or 10^9 Puts/s, beyond any machine, so
// a typo fails at parse time rather than as a schedule no child can follow.
const (
	MaxRateMBps = 100_000
	MaxRatePuts = 1e9
)

// ErrRate is a rate that does not parse or is out of range.
var ErrRate = errors.New("bad rate")

// Rate is an open-loop target for a whole scenario, split across its
// writers by one shared schedule. The zero Rate is closed loop. A plain
// value.
type Rate struct {
	PerSec float64
	Unit   RateUnit
}

// ParseRate parses "20MB", "20MB/s", "1.5GB/s" (decimal: MB = 10^6 B, as
// every MB/s of gcstress), "50000ops", "50Kops/s" or "2Mops" (decimal
// multiples), and "" or "0" as closed loop.
func ParseRate(s string) (Rate, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "/S")
	if t == "" || t == "0" {
		return Rate{}, nil
	}
	switch {
	case strings.HasSuffix(t, "OPS"):
		n, err := parseDecimal(strings.TrimSuffix(t, "OPS"))
		if err != nil || n <= 0 || n > MaxRatePuts {
			return Rate{}, fmt.Errorf("%w: %q: use e.g. 50000ops or 50Kops/s, up to %g", ErrRate, s, float64(MaxRatePuts))
		}
		return Rate{PerSec: n, Unit: RatePuts}, nil
	default:
		mult := map[string]float64{"KB": 1e-3, "MB": 1, "GB": 1e3}
		for suf, m := range mult {
			if strings.HasSuffix(t, suf) {
				n, err := strconv.ParseFloat(strings.TrimSuffix(t, suf), 64)
				if err == nil && n > 0 && n*m <= MaxRateMBps {
					return Rate{PerSec: n * m, Unit: RateMBps}, nil
				}
			}
		}
		return Rate{}, fmt.Errorf("%w: %q: use e.g. 20MB, 20MB/s or 1.5GB/s (decimal units), up to %d MB/s", ErrRate, s, MaxRateMBps)
	}
}

// validate checks a Rate built by hand the way ParseRate checks text: the
// zero Rate (closed loop), or a known unit with a positive, finite rate
// within its maximum.
func (r Rate) validate() error {
	switch {
	case r == Rate{}:
		return nil
	case r.Unit == RateMBps && r.PerSec > 0 && r.PerSec <= MaxRateMBps,
		r.Unit == RatePuts && r.PerSec > 0 && r.PerSec <= MaxRatePuts:
		return nil
	}
	return fmt.Errorf("%w: %v per second in unit %d", ErrRate, r.PerSec, r.Unit)
}

// parseDecimal parses a finite float with an optional K, M or G
// (workload.ParseDecimal); any error is ErrRate.
func parseDecimal(t string) (float64, error) {
	f, err := workload.ParseDecimal(t)
	if err != nil {
		return 0, ErrRate
	}
	return f, nil
}

// Puts is the rate in Puts per second for a value size (0: closed loop).
func (r Rate) Puts(value int64) float64 {
	switch r.Unit {
	case RatePuts:
		return r.PerSec
	case RateMBps:
		return r.PerSec * results.BytesPerMB / float64(int64(workload.KeySize)+value)
	}
	return 0
}

// String prints the rate as ParseRate reads it ("" when closed loop).
func (r Rate) String() string {
	switch r.Unit {
	case RatePuts:
		return strconv.FormatFloat(r.PerSec, 'g', -1, 64) + "ops/s"
	case RateMBps:
		return strconv.FormatFloat(r.PerSec, 'g', -1, 64) + "MB/s"
	}
	return ""
}
