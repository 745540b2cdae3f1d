package engines

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/internal/workload"
)

// Pebble's memtable bounds: Pebble refuses MemTableSize at or above 4 GiB
// (maxMemTableSize, open.go); below 256 KiB its first memtable (which
// starts at 256 KiB and doubles) would already exceed the flush threshold.
const (
	MinPebbleMemtable int64 = 256 << 10
	MaxPebbleMemtable int64 = 4<<30 - 1
)

// ErrMemstore: the scenario's -memstore is outside an engine's bounds.
var ErrMemstore = errors.New("memstore outside the engine's bounds")

// Pebble is a pebble.DB as a gcstress engine: each Put is one DB.Set with
// pebble.NoSync. Kind pebble runs on vfs.NewMem() with the WAL off; kind
// pebble-wal on a temporary directory on disk with the WAL on (no fsync
// per write, as writegc's batch sync mode). Safe for concurrent use; Close
// may race with Puts (see the package doc). One per scenario.
type Pebble struct {
	g    guard
	db   *pebble.DB
	dir  string // temporary directory removed at Close; "" on a MemFS
	last atomic.Pointer[pebble.Metrics]

	stalls    atomic.Int64 // write stalls begun
	stallMu   sync.Mutex
	stallFrom time.Time
	stallNs   int64 // total stall wall time, guarded by stallMu
}

// NewPebble opens a Pebble engine for scenario s: memtable size
// s.Memstore (ErrMemstore outside [MinPebbleMemtable, MaxPebbleMemtable]),
// wal on a temporary directory when wal is true.
func NewPebble(s gcstress.Scenario, o Options, wal bool) (*Pebble, error) {
	if s.Memstore < MinPebbleMemtable || s.Memstore > MaxPebbleMemtable {
		return nil, fmt.Errorf("%w: pebble: -memstore %s not in [%s, 4GiB)", ErrMemstore,
			workload.FormatSize(s.Memstore), workload.FormatSize(MinPebbleMemtable))
	}
	e := &Pebble{}
	opts := &pebble.Options{
		MemTableSize:                uint64(s.Memstore),
		MemTableStopWritesThreshold: o.PebbleMemtables,
		DisableWAL:                  !wal,
		Logger:                      quietLogger{},
		EventListener: &pebble.EventListener{
			WriteStallBegin: func(pebble.WriteStallBeginInfo) { e.stallBegin() },
			WriteStallEnd:   e.stallEnd,
		},
	}
	dir := ""
	if wal {
		d, err := os.MkdirTemp("", "gcstress-pebble-wal-")
		if err != nil {
			return nil, err
		}
		dir, e.dir = d, d
	} else {
		opts.FS = vfs.NewMem()
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		if e.dir != "" {
			_ = os.RemoveAll(e.dir)
		}
		return nil, err
	}
	e.db = db
	return e, nil
}

func (e *Pebble) stallBegin() {
	e.stalls.Add(1)
	e.stallMu.Lock()
	e.stallFrom = time.Now()
	e.stallMu.Unlock()
}

func (e *Pebble) stallEnd() {
	e.stallMu.Lock()
	if !e.stallFrom.IsZero() {
		e.stallNs += int64(time.Since(e.stallFrom))
		e.stallFrom = time.Time{}
	}
	e.stallMu.Unlock()
}

// Put is DB.Set with pebble.NoSync; Pebble copies key and value.
func (e *Pebble) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	return e.db.Set(key, value, pebble.NoSync)
}

// Stats is from DB.Metrics: flushes, bytes they wrote to L0, memtable
// bytes (mutable and queued) and queued memtables. After Close, the
// figures taken at Close.
func (e *Pebble) Stats() gcstress.EngineStats {
	m := e.metrics()
	if m == nil {
		return gcstress.EngineStats{}
	}
	var flushed uint64
	for _, l := range m.Levels {
		flushed += l.TableBytesFlushed
	}
	st := gcstress.EngineStats{
		Flushes:        m.Flush.Count,
		FlushedBytes:   int64(flushed),
		PendingFlushes: max(m.MemTable.Count-1, 0),
		MemtableBytes:  int64(m.MemTable.Size),
	}
	if manualCgo == allocC {
		// Memtables and block cache come from C.calloc in this build:
		// outside the Go heap, where GOMEMLIMIT does not see them.
		st.OffHeapBytes = int64(m.MemTable.Size) + m.BlockCache.Size
	}
	return st
}

// metrics is the DB's metrics while open, the last ones after Close.
func (e *Pebble) metrics() *pebble.Metrics {
	if !e.g.enter() {
		return e.last.Load()
	}
	defer e.g.leave()
	return e.db.Metrics()
}

// Close closes the DB once the Puts inside returned, and removes the
// temporary directory of kind pebble-wal.
func (e *Pebble) Close() error {
	return e.g.close(func() error {
		e.last.Store(e.db.Metrics())
		err := e.db.Close()
		if e.dir != "" {
			err = errors.Join(err, os.RemoveAll(e.dir))
		}
		return err
	})
}

// Notes are Pebble's figures beyond EngineStats: compactions, write
// stalls, and which allocator its manual memory used (manual_cgo 1: C
// calloc; 0: Go heap; -1: race build, either; see the package doc).
func (e *Pebble) Notes() map[string]float64 {
	n := map[string]float64{"manual_cgo": float64(manualCgo)}
	if m := e.last.Load(); m != nil {
		n["compactions"] = float64(m.Compact.Count)
		n["flushes"] = float64(m.Flush.Count)
	}
	n["write_stalls"] = float64(e.stalls.Load())
	e.stallMu.Lock()
	n["write_stall_s"] = float64(e.stallNs) / 1e9
	e.stallMu.Unlock()
	return n
}

// manualAlloc is the allocator behind Pebble's manual memory in this
// build, as the pebble engine's manual_cgo note.
type manualAlloc int

const (
	allocGo     manualAlloc = 0  // make([]byte, n): Go heap, not scanned
	allocC      manualAlloc = 1  // C.calloc: outside the Go heap
	allocRandom manualAlloc = -1 // race build: either, chosen per process
)

// ManualAllocator names the allocator Pebble's manual memory uses in this
// build: "cgo calloc", "go heap" or "random per process (race build)".
func ManualAllocator() string {
	switch manualCgo {
	case allocC:
		return "cgo calloc"
	case allocGo:
		return "go heap"
	}
	return "random per process (race build)"
}

// quietLogger drops Pebble's info and error logs; Fatalf panics, since
// Pebble expects it not to return.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}
