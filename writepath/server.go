package writepath

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/writegc/writegc/arena"
	"github.com/writegc/writegc/internal/slowdown"
	"github.com/writegc/writegc/memtable"
)

// Defaults for ServerOptions.
const (
	DefaultKind              = "arena"
	DefaultFlushThreshold    = 64 << 20
	DefaultMaxPendingFlushes = 2
	DefaultHandlers          = 32
	DefaultQueueSize         = 1024
	// MaxRegions bounds ServerOptions.Regions.
	MaxRegions = 4096
)

// ServerOptions configure NewServer. The zero value works: one region with
// an "arena" memtable, 64 MiB flush threshold, one flusher into the discard
// sink, backpressure after 2 waiting memtables, no WAL.
type ServerOptions struct {
	// Kind is the memtable kind (memtable.Kinds()); "" = "arena".
	Kind string
	// Memtable is passed to memtable.New. If Pool is nil and the kind is
	// "arena" or "offheap", the server creates one shared pool of the right
	// source for all its memtables and closes it on Close.
	Memtable memtable.Options
	// Regions splits the key space evenly by the first 8 key bytes
	// (big-endian); default 1, at most MaxRegions.
	Regions int
	// FlushThreshold is the memtable Size that hands it to a flusher
	// (default 64 MiB).
	FlushThreshold int64
	// Flushers is the number of flush goroutines (default 1).
	Flushers int
	// FlushDir receives segment files; "" = the discard sink, which still
	// iterates the memtable and encodes every entry, so a flush costs CPU
	// like a real one.
	FlushDir string
	// FlushBandwidth limits the bytes/s all flushers write together, to
	// model slow disks; 0 = unlimited.
	FlushBandwidth int64
	// MaxPendingFlushes: a region's writers block while more than this
	// many of its full memtables wait for a flusher (HBase's
	// hbase.hregion.memstore.block.multiplier); default 2.
	MaxPendingFlushes int
	// NoBackpressure: writers never block and the heap grows instead.
	NoBackpressure bool
	// WAL configures the write-ahead log; WAL.Dir "" = none.
	WAL WALOptions
	// Handlers is the number of goroutines serving the request queue
	// (HBase's handler count; default 32). QueueSize is the queue's
	// capacity (default 1024); transports block while it is full.
	Handlers  int
	QueueSize int
	// ReadLatency is an opt-in service-time model for reads (default 0:
	// off). When > 0, every multi-key Get request served through a
	// transport (one per region of a multiget) is answered ReadLatency
	// after its memtable lookup, as if the region server had read one
	// HFile block from disk for it. It reproduces the setting of
	// HBASE-3553, whose gain came from 8 region servers on 8 machines
	// waiting for block reads at the same time; without it, reads are
	// memtable lookups, CPU-bound, and a fan-out on one small machine has
	// nothing to overlap. The wait runs on a timer, not in the handler, so
	// waiting reads hold no handler and any number of them overlap: each
	// region behaves as its own server with its own disk. Server.Get and
	// Puts are never delayed. Timer granularity makes the real delay
	// slightly longer (tens of µs), never shorter.
	ReadLatency time.Duration
	// Logger receives flush failures and the TCP server's per-connection
	// errors; nil discards.
	Logger *slog.Logger
}

// ServerStats is a snapshot of the server's counters.
type ServerStats struct {
	Regions        int
	Puts           int64 // entries applied
	Bytes          int64 // key+value bytes applied
	Gets           int64 // keys looked up
	Requests       int64 // requests served through the queue
	Flushes        int64
	FlushedBytes   int64 // key+value bytes flushed
	FlushErrors    int64
	PendingFlushes int   // full memtables waiting now, all regions
	MemtableBytes  int64 // Size of active plus pending memtables
	// MemtableEntries is the Len of active plus pending memtables: the
	// entries the server holds in memory now.
	MemtableEntries int64
	BlockedNanos    int64 // total time writers spent blocked by backpressure
	Blocked         int64 // number of times a writer blocked
	WALGroups       int64 // WAL writes (one per group; one per append in mode always)
	WALSyncs        int64
	WALBytes        int64
	WALFiles        int   // live log files
	Replayed        int64 // entries restored from the WAL at open
	ReplayTorn      int   // 1 if the last log ended in a torn tail (cut off at open)
	// ReplaySkipped and ReplayIgnored are the WAL records and bytes that
	// replay at open could not restore; Server.WALReplay has the detail.
	ReplaySkipped int64
	ReplayIgnored int64
	// OffHeapBytes is what the offheap kind's chunk pool has mapped outside
	// the Go heap now (arena.Stats.MappedBytes); 0 for the other kinds.
	OffHeapBytes int64
}

// Server is a region server: regions by key range, each with an active
// memtable and a queue of full memtables that flushers write out; an
// optional WAL; a request queue served by handler goroutines, which every
// transport goes through.
//
// Concurrency: every method is safe for concurrent use. Lifetime: from
// NewServer until Close; after Close, Put, Get and every transport return
// ErrClosed. Close does not flush: unflushed data lives on only in the WAL
// (if any) and is replayed by the next NewServer on the same WAL.Dir.
type Server struct {
	opts   ServerOptions
	kind   string
	mtOpts memtable.Options
	pool   *arena.Pool // owned, or nil
	logger *slog.Logger

	regions []*region
	wal     *wal
	walLock *walDirLock // held from openWAL to Close
	// walOpen is wal once it is open, for the flushers: they run during
	// replay, while wal is being set.
	walOpen atomic.Pointer[wal]

	queue   chan *call
	closeMu sync.RWMutex
	closed  atomic.Bool
	hWG     sync.WaitGroup

	flushq    flushQueue
	flushWG   sync.WaitGroup
	flushStop atomic.Bool
	flushSeq  atomic.Uint64
	limit     limiter

	puts, bytes, gets, requests atomic.Int64
	flushes, flushedBytes       atomic.Int64
	flushErrors                 atomic.Int64
	blocked, blockedNanos       atomic.Int64
	walReplay                   WALReplayStats // set once by NewServer
}

// NewServer starts a server, in this order: it makes each region's first
// memtable and starts the flushers; then, with a WAL, it replays WAL.Dir's
// logs (if any) into those memtables, with the flushers running, so that a
// replay larger than the flush threshold rotates and flushes as it goes,
// and opens the next log (starting the WAL writer); last it starts the
// handlers. On an error it stops what it started and returns it.
func NewServer(opts ServerOptions) (*Server, error) {
	opts.setDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, kind: opts.Kind, mtOpts: opts.Memtable, logger: opts.Logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.limit.rate = opts.FlushBandwidth
	s.flushq.cond = sync.NewCond(&s.flushq.mu)
	if err := s.newPool(); err != nil {
		return nil, err
	}
	s.regions = make([]*region, opts.Regions)
	for i := range s.regions {
		r := &region{s: s, id: i}
		r.bpCond = sync.NewCond(&r.bpMu)
		m, err := s.newMemEntry(r)
		if err != nil {
			s.releaseAll()
			return nil, err
		}
		r.active = m
		s.regions[i] = r
	}
	for range opts.Flushers {
		s.flushWG.Add(1)
		go s.flusher()
	}
	if err := s.openFiles(); err != nil {
		s.stopFlushers()
		s.releaseAll()
		return nil, err
	}
	s.queue = make(chan *call, opts.QueueSize)
	for range opts.Handlers {
		s.hWG.Add(1)
		go s.handler()
	}
	return s, nil
}

// setDefaults fills the zero fields that have a default.
func (o *ServerOptions) setDefaults() {
	o.Kind = cmp.Or(o.Kind, DefaultKind)
	o.Regions = cmp.Or(o.Regions, 1)
	o.FlushThreshold = cmp.Or(o.FlushThreshold, DefaultFlushThreshold)
	o.Flushers = cmp.Or(o.Flushers, 1)
	o.MaxPendingFlushes = cmp.Or(o.MaxPendingFlushes, DefaultMaxPendingFlushes)
	o.Handlers = cmp.Or(o.Handlers, DefaultHandlers)
	o.QueueSize = cmp.Or(o.QueueSize, DefaultQueueSize)
}

// validate rejects options no server can run with (ErrInvalidOption).
func (o *ServerOptions) validate() error {
	switch {
	case o.Regions < 1 || o.Regions > MaxRegions:
		return fmt.Errorf("%w: Regions %d not in [1, %d]", ErrInvalidOption, o.Regions, MaxRegions)
	case o.FlushThreshold < 0, o.Flushers < 0, o.FlushBandwidth < 0, o.MaxPendingFlushes < 0,
		o.Handlers < 0, o.QueueSize < 0, o.ReadLatency < 0:
		return fmt.Errorf("%w: negative value in ServerOptions", ErrInvalidOption)
	case o.WAL.Sync < SyncNone || o.WAL.Sync > SyncAlways:
		return fmt.Errorf("%w: WAL sync mode %d", ErrInvalidOption, o.WAL.Sync)
	case o.WAL.Recovery < WALTolerateTornTail || o.WAL.Recovery > WALSkipCorrupted:
		return fmt.Errorf("%w: WAL recovery mode %d", ErrInvalidOption, o.WAL.Recovery)
	}
	return nil
}

// newPool gives the arena kinds a chunk pool shared by every memtable of the
// server, unless the caller passed one: a flushed memtable's chunks go to
// the next active one.
func (s *Server) newPool() error {
	if s.mtOpts.Pool != nil || (s.kind != memtable.KindArena && s.kind != memtable.KindOffHeap) {
		return nil
	}
	cs := s.mtOpts.ChunkSize
	if cs == 0 {
		cs = arena.DefaultChunkSize
	}
	p, err := arena.NewPool(arena.PoolOptions{
		ChunkSize: cs,
		MaxPooled: int(min(int64(s.opts.Regions)*(s.opts.FlushThreshold/int64(cs)+1), 4096)),
		OffHeap:   s.kind == memtable.KindOffHeap,
	})
	if err != nil {
		return err
	}
	s.pool, s.mtOpts.Pool = p, p
	return nil
}

// openFiles creates the flush directory and opens (replays) the WAL.
func (s *Server) openFiles() error {
	if s.opts.FlushDir != "" {
		if err := os.MkdirAll(s.opts.FlushDir, 0o755); err != nil {
			return err
		}
	}
	if s.opts.WAL.Dir != "" {
		return s.openWAL()
	}
	return nil
}

// openWAL replays WAL.Dir's logs per WAL.Recovery (see replayWAL), then
// starts the next log. Replay damage the mode does not allow fails it with a
// *WALCorruptError.
func (s *Server) openWAL() error {
	if err := os.MkdirAll(s.opts.WAL.Dir, 0o755); err != nil {
		return err
	}
	lock, err := lockWALDir(s.opts.WAL.Dir)
	if err != nil {
		return err
	}
	if err := s.replayAndOpenWAL(); err != nil {
		if rerr := lock.release(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return err
	}
	s.walLock = lock
	return nil
}

// replayAndOpenWAL is openWAL once the directory is locked.
func (s *Server) replayAndOpenWAL() error {
	nums, err := listLogs(s.opts.WAL.Dir)
	if err != nil {
		return err
	}
	var next uint64
	s.walReplay, nums, next, err = replayWAL(s.opts.WAL.Dir, nums, s.opts.WAL.Recovery, func(n uint64, payload []byte) (int, error) {
		return forEachEntry(payload, func(_ int, k, v []byte) error {
			return s.regions[RegionOf(k, len(s.regions))].put(k, v, n)
		})
	})
	if err != nil {
		return err
	}
	w, err := openWAL(s.opts.WAL, nums, next)
	if err != nil {
		return err
	}
	s.wal = w
	s.walOpen.Store(w)
	s.trimWAL()
	return nil
}

// WALReplay reports what replaying the WAL at open restored and what damage
// it found (the zero value without a WAL). The report is fixed at open.
func (s *Server) WALReplay() WALReplayStats { return s.walReplay.clone() }

// Options returns the options in effect (defaults filled in).
func (s *Server) Options() ServerOptions { return s.opts }

// Regions returns the number of regions.
func (s *Server) Regions() int { return len(s.regions) }

// Put writes one entry directly (no transport, no request queue) and returns
// once it is in the memtable and durable per the WAL mode.
func (s *Server) Put(key, value []byte) error {
	if s.wal == nil {
		slowdown.Inject(slowdown.WritepathPut)
		if err := memtable.CheckEntry(key, value); err != nil {
			return err
		}
		if s.closed.Load() {
			return ErrClosed
		}
		if err := s.regions[RegionOf(key, len(s.regions))].put(key, value, 0); err != nil {
			return err
		}
		s.puts.Add(1)
		s.bytes.Add(int64(len(key) + len(value)))
		return nil
	}
	b := getBatch()
	b.Add(key, value)
	err := s.applyBatch(b.Bytes())
	putBatch(b)
	return err
}

// PutBatch applies an encoded batch directly; see applyBatch.
func (s *Server) PutBatch(b *Batch) error { return s.applyBatch(b.Bytes()) }

// Get returns a copy of the latest value of key among the memtables not yet
// flushed (flushed data lives in segment files; see ScanSegment).
func (s *Server) Get(key []byte) ([]byte, bool, error) {
	if s.closed.Load() {
		return nil, false, ErrClosed
	}
	s.gets.Add(1)
	v, ok := s.regions[RegionOf(key, len(s.regions))].get(key, nil)
	if ok && v == nil {
		v = []byte{}
	}
	return v, ok, nil
}

// view calls f with the latest value of key (aliasing the memtable, valid
// only during f) under the region's read lock; false if not found.
func (r *region) view(key []byte, f func(v []byte)) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.active == nil {
		return false
	}
	if v, ok := r.active.mt.Get(key); ok {
		f(v)
		return true
	}
	for i := len(r.pending) - 1; i >= 0; i-- {
		if v, ok := r.pending[i].mt.Get(key); ok {
			f(v)
			return true
		}
	}
	return false
}

// resultCost is the encoded size of one Get result (see appendGetResults).
func resultCost(vlen int, found bool) int {
	if !found {
		return 2
	}
	return 1 + uvarintLen(uint64(vlen)) + vlen
}

func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// getReplySize sums the encoded size of the results of keys without copying
// a value, and fails with ErrReplyTooLarge as soon as the sum would pass
// limit. The sum never exceeds limit, so it cannot overflow.
func (s *Server) getReplySize(keys [][]byte, limit int) (int, error) {
	size := 4
	for _, k := range keys {
		cost := 2
		s.regions[RegionOf(k, len(s.regions))].view(k, func(v []byte) { cost = resultCost(len(v), true) })
		if cost > limit-size {
			return 0, fmt.Errorf("%w: the %d keys need more than %d B", ErrReplyTooLarge, len(keys), limit)
		}
		size += cost
	}
	return size, nil
}

// appendGetResults encodes the lookup of keys:
//
//	count uint32 LE, count × { found uint8, vlen uvarint, value }
//
// It checks limit before appending each result (values may have grown since
// getReplySize): on ErrReplyTooLarge dst holds at most limit bytes more.
func (s *Server) appendGetResults(dst []byte, keys [][]byte, limit int) ([]byte, error) {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(keys)))
	var err error
	for _, k := range keys {
		found := s.regions[RegionOf(k, len(s.regions))].view(k, func(v []byte) {
			if resultCost(len(v), true) > limit-(len(dst)-start) {
				err = fmt.Errorf("%w: values grew past %d B while being read", ErrReplyTooLarge, limit)
				return
			}
			dst = append(dst, 1)
			dst = binary.AppendUvarint(dst, uint64(len(v)))
			dst = append(dst, v...)
		})
		if err == nil && !found {
			if 2 > limit-(len(dst)-start) {
				err = fmt.Errorf("%w: %d B", ErrReplyTooLarge, limit)
			}
			dst = append(dst, 0, 0)
		}
		if err != nil {
			return dst[:start], err
		}
	}
	s.gets.Add(int64(len(keys)))
	return dst, nil
}

// serveGet answers c's Get on the handler goroutine: the reply is sized
// first (nothing is built for a reply over the limit), then c.admit (TCP)
// may defer building it to the connection's writer; otherwise it is built
// into c.resp at its exact size.
func (s *Server) serveGet(c *call) {
	limit := c.maxReply
	if limit <= 0 {
		limit = DefaultMaxReply
	}
	size, err := s.getReplySize(c.keys, limit)
	if err != nil {
		c.err = err
		return
	}
	if c.admit != nil && !c.admit(c, size) {
		c.deferred = true
		return
	}
	dst := slices.Grow(c.resp[:0], c.respHeader+size)[:c.respHeader]
	c.resp, c.err = s.appendGetResults(dst, c.keys, limit)
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() ServerStats {
	st := ServerStats{
		Regions:      len(s.regions),
		Puts:         s.puts.Load(),
		Bytes:        s.bytes.Load(),
		Gets:         s.gets.Load(),
		Requests:     s.requests.Load(),
		Flushes:      s.flushes.Load(),
		FlushedBytes: s.flushedBytes.Load(),
		FlushErrors:  s.flushErrors.Load(),
		BlockedNanos: s.blockedNanos.Load(),
		Blocked:      s.blocked.Load(),
		Replayed:     s.walReplay.Entries,
	}
	for _, r := range s.regions {
		st.PendingFlushes += int(r.npending.Load())
		b, n := r.memHeld()
		st.MemtableBytes += b
		st.MemtableEntries += n
	}
	st.ReplaySkipped, st.ReplayIgnored = s.walReplay.RecordsSkipped, s.walReplay.BytesIgnored
	if s.pool != nil {
		st.OffHeapBytes = s.pool.Stats().MappedBytes
	}
	if s.walReplay.TornTailBytes > 0 {
		st.ReplayTorn = 1
	}
	if s.wal != nil {
		st.WALGroups = s.wal.groups.Load()
		st.WALSyncs = s.wal.syncs.Load()
		st.WALBytes = s.wal.bytes.Load()
		st.WALFiles = s.wal.liveLogs()
	}
	return st
}

// trimWAL deletes log files whose every entry is flushed. In-flight appends
// are read before the memtables: an append released after the first read has
// already charged its memtable, which the second read sees.
func (s *Server) trimWAL() {
	w := s.walOpen.Load()
	if w == nil { // no WAL, or still replaying it: every log is needed
		return
	}
	keep := w.minInflight()
	for _, r := range s.regions {
		keep = min(keep, r.minLog())
	}
	if keep == math.MaxUint64 {
		keep = w.num.Load()
	}
	w.deleteBelow(keep)
}

// Close stops the server: new requests get ErrClosed, queued ones are
// answered (Puts with ErrClosed), writers blocked by backpressure are released with ErrClosed,
// flushers stop (a flush in progress is abandoned), the WAL is closed
// (not truncated) and every memtable is released. Close is idempotent.
func (s *Server) Close() error {
	s.closeMu.Lock()
	if s.closed.Load() {
		s.closeMu.Unlock()
		return nil
	}
	s.closed.Store(true)
	close(s.queue)
	s.closeMu.Unlock()
	for _, r := range s.regions {
		r.bpMu.Lock()
		r.bpCond.Broadcast()
		r.bpMu.Unlock()
	}
	s.hWG.Wait()
	s.stopFlushers()
	var err error
	if s.wal != nil {
		err = s.wal.close()
	}
	if s.walLock != nil {
		// After the log is closed: the next opener may replay it at once.
		err = errors.Join(err, s.walLock.release())
	}
	s.releaseAll()
	return err
}

func (s *Server) stopFlushers() {
	s.flushStop.Store(true)
	s.flushq.close()
	s.flushWG.Wait()
}

func (s *Server) releaseAll() {
	for _, r := range s.regions {
		if r != nil {
			r.release()
		}
	}
	if s.pool != nil {
		s.pool.Close()
	}
}

// call is one request through the server's queue.
type call struct {
	op      FrameType // FramePut or FrameGet
	payload []byte
	keys    [][]byte
	err     error
	resp    []byte
	done    func(*call)
	picked  func(*call)   // if set, called as a handler takes the call off the queue
	ch      chan struct{} // signalled by syncDone
	cb      func(error)   // called by asyncDone
	// maxReply limits a Get's encoded reply (0: DefaultMaxReply).
	maxReply int
	// respHeader bytes are left at the start of resp, before a Get's
	// results (TCP writes its frame header there: no copy).
	respHeader int
	// admit, if set, is asked on the handler whether a Get reply of size
	// bytes may be built now; false defers building it (deferred = true)
	// to the TCP connection's writer.
	admit    func(c *call, size int) bool
	deferred bool
	// TCP server side
	tc          *tcpConn
	id          uint32
	pbuf        *[]byte // pooled frame buffer holding payload/keys
	charged     int     // request bytes charged to the TCP budgets
	replyCharge int     // reply bytes tcpAdmit charged
}

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan struct{}, 1)} }}

func getCall() *call { return callPool.Get().(*call) }

func putCall(c *call) {
	c.payload, c.keys, c.err, c.resp, c.done, c.picked, c.cb, c.tc, c.pbuf = nil, nil, nil, nil, nil, nil, nil, nil, nil
	c.maxReply, c.respHeader, c.admit, c.deferred, c.charged, c.replyCharge = 0, 0, nil, false, 0, 0
	callPool.Put(c)
}

func syncDone(c *call) { c.ch <- struct{}{} }

func asyncDone(c *call) {
	cb, err := c.cb, c.err
	putCall(c)
	cb(err)
}

// submit queues c for a handler; done runs on the handler goroutine.
func (s *Server) submit(c *call) error {
	s.closeMu.RLock()
	if s.closed.Load() {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	s.queue <- c
	s.closeMu.RUnlock()
	return nil
}

func (s *Server) handler() {
	defer s.hWG.Done()
	for c := range s.queue {
		if c.picked != nil {
			c.picked(c)
		}
		s.requests.Add(1)
		switch c.op {
		case FramePut:
			c.err = s.applyBatch(c.payload)
		case FrameGet:
			s.serveGet(c)
			if d := s.opts.ReadLatency; d > 0 {
				// The modelled block read: answer later, off the handler.
				time.AfterFunc(d, func() { c.done(c) })
				continue
			}
		default:
			c.err = fmt.Errorf("%w: op %d", ErrProtocol, c.op)
		}
		c.done(c)
	}
}
