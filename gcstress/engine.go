package gcstress

import (
	"errors"
	"fmt"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
	"github.com/writegc/writegc/writepath"
)

// PathServer is the write path with no client (results.PathServer).
const PathServer = results.PathServer

// KeySize is the length in bytes of every key an Engine's Put receives
// (results.KeySize: 16 random bytes, in every scenario); the value is
// Scenario.Value bytes.
const KeySize = results.KeySize

// writegc's own kinds are registered like anyone's: each runs its memtable
// kind inside the region server (newServerEngine).
func init() {
	for _, k := range []string{memtable.KindHeap, memtable.KindArena, memtable.KindOffHeap, memtable.KindBTree} {
		RegisterEngine(k, newServerEngine)
	}
}

// serverEngine drives a writepath.Server with memtables of the scenario's
// kind, either directly (PathServer) or through a writepath client and
// transport (Scenario.Path, Scenario.Transport).
type serverEngine struct {
	srv    *writepath.Server
	client writepath.Client // nil for PathServer
	closeT func() error
	t      writepath.Transport // the client's transport, for Get (nil for PathServer)
}

// newServerEngine builds the write path a scenario drives: a region server
// holding memtables of kind s.Kind, behind the scenario's client path.
// Flushes go to the discard sink (the flusher still iterates and encodes
// every entry) at the scenario's flush bandwidth.
func newServerEngine(s Scenario) (Engine, error) {
	srv, err := writepath.NewServer(writepath.ServerOptions{
		Kind: s.Kind, Regions: s.Regions, FlushThreshold: s.Memstore, Flushers: s.Flushers,
		FlushBandwidth: s.FlushBW, MaxPendingFlushes: s.MaxPendingFlushes, NoBackpressure: !s.Backpressure,
		Handlers: max(4, 2*s.Writers),
	})
	if err != nil {
		return nil, err
	}
	e := &serverEngine{srv: srv}
	if s.Path == PathServer {
		return e, nil
	}
	t, closeT, err := writepath.Connect(s.Transport, srv)
	if err != nil {
		srv.Close()
		return nil, err
	}
	c, err := writepath.NewClient(s.Path, t, writepath.ClientOptions{})
	if err != nil {
		closeT()
		srv.Close()
		return nil, err
	}
	e.client, e.closeT, e.t = c, closeT, t
	return e, nil
}

func (e *serverEngine) Put(key, value []byte) error {
	if e.client != nil {
		return e.client.Put(key, value)
	}
	return e.srv.Put(key, value)
}

func (e *serverEngine) Stats() EngineStats {
	st := e.srv.Stats()
	return EngineStats{Flushes: st.Flushes, FlushedBytes: st.FlushedBytes, PendingFlushes: int64(st.PendingFlushes),
		MemtableBytes: st.MemtableBytes, BlockedNanos: st.BlockedNanos, Entries: st.MemtableEntries,
		OffHeapBytes: st.OffHeapBytes}
}

// Close closes the client (sending what it buffered), the transport and the
// server (which abandons pending flushes). The child calls it once.
func (e *serverEngine) Close() error {
	var errs []error
	if e.client != nil {
		if err := e.client.Close(); err != nil && !errors.Is(err, writepath.ErrClosed) {
			errs = append(errs, err)
		}
		errs = append(errs, e.closeT())
	}
	errs = append(errs, e.srv.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gcstress: close write path: %w", err)
	}
	return nil
}

// clientPaths are the write paths with a client in front of the server.
func clientPaths() []string { return writepath.Paths() }

// transports are the client-server transports.
func transports() []string { return writepath.Transports() }
