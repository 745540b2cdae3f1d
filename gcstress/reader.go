package gcstress

import "github.com/writegc/writegc/gcstress/internal/child"

// Getter is an Engine that serves reads: Get returns key's latest value
// and whether it was found. Mixes that read (-mix a, b, c, d, f) need it;
// an engine without it cannot run them (the run is refused, exit 2).
//
// Concurrency: Get is called from Scenario.Writers goroutines at once,
// concurrently with Put, Scan and Stats. The key is valid only during the
// call; the returned slice is the caller's to read (not to keep past the
// next call on that goroutine: an engine may reuse it) and is never
// written. A miss is (nil, false, nil): the harness counts misses
// (end.ops.read.misses) and times them like hits. An error ends the
// scenario, as a Put error does.
type Getter = child.Getter

// Scanner is an Engine that serves short ordered scans: Scan calls fn
// with up to n entries whose keys are at or above start, in ascending key
// order, each key once with its latest value, until fn returns false.
// Mix e (95% scans) needs it.
//
// Concurrency: as Getter's. The slices fn gets are valid only during the
// call; fn does not call the engine. n is 1 to proto.MaxScanLen (100) in
// gcstress's mixes. An error ends the scenario.
type Scanner = child.Scanner

// Get reads through the scenario's path: through the transport for a
// client path, straight from the server otherwise. Both look in the active
// and the frozen memtables of the key's region; gcstress flushes to a
// discard sink, so a record already flushed is a miss.
func (e *serverEngine) Get(key []byte) ([]byte, bool, error) {
	if e.t != nil {
		vals, err := e.t.Get([][]byte{key})
		if err != nil {
			return nil, false, err
		}
		return vals[0], vals[0] != nil, nil
	}
	return e.srv.Get(key)
}

// Scan reads from the server's memtables (writepath.Server.Scan) on
// every path: the transports carry no scan.
func (e *serverEngine) Scan(start []byte, n int, fn func(key, value []byte) bool) error {
	return e.srv.Scan(start, n, fn)
}

// ErrMixUnsupported is a mix an engine cannot serve (it lacks Getter or
// Scanner); it wraps into ErrUsage when Config.Validate's probe finds it.
var ErrMixUnsupported = child.ErrUnsupported

var (
	_ Getter  = (*serverEngine)(nil)
	_ Scanner = (*serverEngine)(nil)
)
