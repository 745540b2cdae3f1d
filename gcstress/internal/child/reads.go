package child

import (
	"errors"
	"fmt"

	"github.com/writegc/writegc/gcstress/internal/proto"
)

// Getter is an engine that serves reads: Get returns key's latest value
// and whether it was found (gcstress.Getter, whose comment is the
// contract).
type Getter interface {
	Get(key []byte) ([]byte, bool, error)
}

// Scanner is an engine that serves short ordered scans: Scan calls fn
// with up to n entries whose keys are at or above start, in ascending key
// order, until fn returns false (gcstress.Scanner).
type Scanner interface {
	Scan(start []byte, n int, fn func(key, value []byte) bool) error
}

// ErrUnsupported is a mix an engine cannot serve (it lacks Getter or
// Scanner).
var ErrUnsupported = errors.New("engine cannot serve the mix")

// Support says whether engine e of kind can serve mix m: nil, or an
// error wrapping ErrUnsupported that names what it lacks.
func Support(kind string, e any, m proto.Mix) error {
	if _, ok := e.(Getter); m.NeedsGet() && !ok {
		return fmt.Errorf("%w: kind %s has no Get (gcstress.Getter): -mix %s reads; use -mix w (or e, if it scans)", ErrUnsupported, kind, m.Name)
	}
	if _, ok := e.(Scanner); m.NeedsScan() && !ok {
		return fmt.Errorf("%w: kind %s has no Scan (gcstress.Scanner): -mix %s scans; use -mix w (or a, b, c, d, f, if it reads)", ErrUnsupported, kind, m.Name)
	}
	return nil
}
