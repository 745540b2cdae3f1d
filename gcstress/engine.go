package gcstress

import (
	"errors"
	"fmt"
	"sync"

	"github.com/writegc/writegc/writepath"
)

// engine is the write path under load, as the child sees it: Put from many
// goroutines, Stats from the sampler, Close once after every Put returned.
type engine interface {
	Put(key, value []byte) error
	Stats() engineStats
	Close() error
}

// engineStats are cumulative counters (PendingFlushes and MemtableBytes are
// point values).
type engineStats struct {
	Flushes, FlushedBytes, PendingFlushes, MemtableBytes, BlockedNanos int64
}

// wpEngine drives a writepath.Server, either directly (path "server": Puts
// go straight into the region server, the cheapest path, so the memtable's
// GC cost dominates) or through a writepath client and transport.
type wpEngine struct {
	once     sync.Once
	closeErr error
	srv      *writepath.Server
	client   writepath.Client // nil for path "server"
	closeT   func() error
}

// newEngine builds the write path a scenario drives. Flushes go to the
// discard sink (the flusher still iterates and encodes every entry) at the
// scenario's flush bandwidth.
func newEngine(s Scenario) (engine, error) {
	srv, err := writepath.NewServer(writepath.ServerOptions{
		Kind: s.Kind, Regions: s.Regions, FlushThreshold: s.Memstore, Flushers: s.Flushers,
		FlushBandwidth: s.FlushBW, MaxPendingFlushes: s.MaxPendingFlushes, NoBackpressure: !s.Backpressure,
		Handlers: max(4, 2*s.Writers),
	})
	if err != nil {
		return nil, err
	}
	e := &wpEngine{srv: srv}
	if s.Path == "server" {
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
	e.client, e.closeT = c, closeT
	return e, nil
}

func (e *wpEngine) Put(key, value []byte) error {
	if e.client != nil {
		return e.client.Put(key, value)
	}
	return e.srv.Put(key, value)
}

func (e *wpEngine) Stats() engineStats {
	st := e.srv.Stats()
	return engineStats{Flushes: st.Flushes, FlushedBytes: st.FlushedBytes, PendingFlushes: int64(st.PendingFlushes),
		MemtableBytes: st.MemtableBytes, BlockedNanos: st.BlockedNanos}
}

// Close closes the client (sending what it buffered), the transport and the
// server (which abandons pending flushes). It is idempotent; a concurrent
// second call waits for the first.
func (e *wpEngine) Close() error {
	e.once.Do(func() { e.closeErr = e.close() })
	return e.closeErr
}

func (e *wpEngine) close() error {
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
