package memtable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/writegc/writegc/arena"
)

func init() {
	register(KindArena, func(o Options) (Memtable, error) { return newArenaTable(o, false) })
	register(KindOffHeap, func(o Options) (Memtable, error) { return newArenaTable(o, true) })
}

// Arena layout: one node per key in the table's node arena, 8-byte aligned,
// an arenaNode whose tower holds only its height's links,
//
//	0        8
//	| record | tower[h] uint64 |
//
// and one record per value put in a second arena of the table, its record
// arena (same pool), unaligned,
//
//	0         4         8
//	| keyLen  | valLen  | key bytes | value bytes |
//
// record is the handle of the node's current record. An overwrite copies the
// key and the new value into a new record and swaps the handle, so readers
// see the old or the new record whole. A Put of a large value (putLarge in
// skiplist.go) allocates its record before its node and fills the value in
// while it searches; the record is the same, and an overwrite then takes it
// as the new record rather than copying the value again.
//
// Nodes hold only what a search reads: with 16-byte keys and 100-byte values
// a node is about 29 bytes (8 + 8 per level, 2.67 levels on average) instead
// of the ~150 of a node that holds its key and value, so the nodes a search
// visits (one cache miss each, the cost of an insert) are spread over a
// fifth of the pages and cache lines, and more of the upper levels of the
// list stay cached and in the TLB. A Get still touches two places, the node
// and its record, as before (the node's header, then its value). Each tower
// entry is a link word naming the next node at that level: its high 32 bits
// are the first four bytes of that node's key (keyPrefix), its low 32 bits
// the node's arena.Compact address in the node arena. A search compares
// against the prefix in the link and touches the next node only to move onto
// it, or to read its key through its record to break a prefix tie. Nothing
// here is a Go pointer: the collector never looks inside a chunk.
//
// Limits: compact addresses are 32 bits of 8-byte units, so one memtable
// addresses at most 32 GiB of node chunks (with 2 MiB chunks: 16383 chunks);
// beyond that Put returns ErrFull.
const (
	offTower   = 8 // unsafe.Offsetof(arenaNode{}.tower), which a test checks
	recordHdr  = 8
	headHeight = maxHeight
	// nodeOverflow is the node arena's arena.Options.Overflow: room after
	// every node for the tower entries it was not allocated with, so that
	// the *arenaNode view of the shortest node (height 1) stays inside its
	// chunk. 504 bytes per 2 MiB chunk.
	nodeOverflow = int(unsafe.Sizeof(arenaNode{})) - offTower - 8
)

// arenaNode is a node over arena memory, reached by converting its address
// (arenaStore.node). A node of height h owns only tower[:h]: the rest of the
// struct overlaps the memory after it (the next node, or the node arena's
// overflow reserve), which no code reads or writes. Its fields are atomics
// because readers load them while writers link and overwrite; the two plain
// stores (plainStore) write words no other goroutine can reach yet.
//
// The tower is towerLen (64) entries long although no node is higher than
// maxHeight (40): a level is indexed as tower[level&(towerLen-1)], which
// the compiler knows is in range, so a link's load or CAS costs one AND
// instead of a bounds check, whose panic path would also give the store's
// leaf methods a stack frame. Only the view is longer: nodes are allocated
// by height, and the overflow reserve (nodeOverflow) covers the view.
type arenaNode struct {
	record atomic.Uint64           // arena.Handle of the current record (record arena)
	tower  [towerLen]atomic.Uint64 // link words; only tower[:height] is the node's
}

// towerLen is arenaNode's tower length: a power of two, at least maxHeight.
const towerLen = 64

// link returns n's link word at level (below n's height).
func (n *arenaNode) link(level int) *atomic.Uint64 { return &n.tower[level&(towerLen-1)] }

// plainStore writes v into w without an atomic instruction. It is for words
// of a node not yet published (a new node's record and its tower before the
// CAS that links it at that level): the CAS orders the store for every
// reader, and a locked store (an XCHG on amd64) would wait for the record's
// lines to be written.
func plainStore(w *atomic.Uint64, v uint64) { *(*uint64)(unsafe.Pointer(w)) = v }

// arenaStore is the nodeStore of the arena layouts. Its references are link
// words (see the layout above); the zero link is nil.
type arenaStore struct {
	a  *arena.Arena // nodes
	va *arena.Arena // records (key and value)
}

func newArenaStore(a, va *arena.Arena) arenaStore { return arenaStore{a: a, va: va} }

// node returns the node a link word names (not nil).
func (s arenaStore) node(l uint64) *arenaNode {
	return (*arenaNode)(s.a.CompactPointer(arena.Compact(l)))
}

// newRecord allocates a record for key and value in the record arena and
// writes its header and key; the value's bytes, returned, are the caller's
// to copy (putLarge copies them while it searches).
func (s arenaStore) newRecord(key, value []byte) (arena.Handle, []byte, int64, error) {
	rec, b, err := s.va.AllocBytes(recordHdr + len(key) + len(value))
	if err != nil {
		return 0, nil, 0, err
	}
	binary.LittleEndian.PutUint32(b, uint32(len(key)))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(value)))
	copy(b[recordHdr:], key)
	return rec, b[recordHdr+len(key):], int64(len(b)), nil
}

// copyRecord is a new record holding copies of key and value.
func (s arenaStore) copyRecord(key, value []byte) (arena.Handle, int64, error) {
	rec, dst, charged, err := s.newRecord(key, value)
	if err != nil {
		return 0, 0, err
	}
	copy(dst, value)
	return rec, charged, nil
}

func (s arenaStore) newNode(key, value []byte, height int) (uint64, int64, error) {
	rec, charged, err := s.copyRecord(key, value)
	if err != nil {
		return 0, 0, err
	}
	n, size, err := s.newNodeAt(key, rec, height)
	if err != nil {
		return 0, charged, err // the record stays allocated: charge it
	}
	return n, charged + size, nil
}

// newNodeAt allocates a node pointing at record rec, whose key is key.
func (s arenaStore) newNodeAt(key []byte, rec arena.Handle, height int) (uint64, int64, error) {
	// Every allocation of the node arena is a node, a multiple of 8 bytes,
	// and chunks start 8-byte aligned (arena: mmap'd pages or Go heap
	// objects of at least 16 bytes), so plain bump allocation keeps every
	// node 8-byte aligned, as its atomic links need, with no padding:
	// AllocAligned would reserve 7 bytes more per node, a fifth of an
	// average node.
	size := offTower + 8*height
	h, b, err := s.a.AllocBytes(size)
	if err != nil {
		return 0, 0, err
	}
	c, err := s.a.Compact(h)
	if errors.Is(err, arena.ErrUnaligned) {
		panic("memtable: arena node not 8-byte aligned (something else allocated from the node arena)")
	}
	if err != nil {
		return 0, 0, ErrFull
	}
	n := (*arenaNode)(unsafe.Pointer(unsafe.SliceData(b)))
	clear(n.tower[:height])
	plainStore(&n.record, uint64(rec))
	return uint64(keyPrefix(key))<<32 | uint64(c), int64(size), nil
}

func (s arenaStore) next(n uint64, level int) uint64 { return s.node(n).link(level).Load() }

// setNext is a plain store: n is not linked at level yet, so no other
// goroutine reads this link until the CAS that links n there orders it.
func (s arenaStore) setNext(n uint64, level int, to uint64) {
	plainStore(s.node(n).link(level), to)
}

func (s arenaStore) casNext(n uint64, level int, old, new uint64) bool {
	return s.node(n).link(level).CompareAndSwap(old, new)
}

func (s arenaStore) prefix(n uint64) uint32 { return uint32(n >> 32) }

// record returns the address of n's current record and its key length.
func (s arenaStore) record(n uint64) (unsafe.Pointer, uint32) {
	p := s.va.Pointer(arena.Handle(s.node(n).record.Load()))
	return p, *(*uint32)(p)
}

func (s arenaStore) key(n uint64) []byte {
	p, kl := s.record(n)
	return unsafe.Slice((*byte)(unsafe.Add(p, recordHdr)), kl)
}

func (s arenaStore) value(n uint64) []byte {
	_, v := s.entry(n)
	return v
}

func (s arenaStore) entry(n uint64) ([]byte, []byte) {
	p, kl := s.record(n)
	vl := *(*uint32)(unsafe.Add(p, 4))
	k := unsafe.Add(p, recordHdr)
	return unsafe.Slice((*byte)(k), kl), unsafe.Slice((*byte)(unsafe.Add(k, kl)), vl)
}

// setValue puts a copy of n's key and of value in a new record and swaps
// n's record handle to it.
func (s arenaStore) setValue(n uint64, value []byte) (int64, error) {
	rec, charged, err := s.copyRecord(s.key(n), value)
	if err != nil {
		return 0, err
	}
	s.setRecord(n, rec)
	return charged, nil
}

// setRecord swaps n's record handle to rec, whose key is n's.
func (s arenaStore) setRecord(n uint64, rec arena.Handle) {
	s.node(n).record.Store(uint64(rec))
}

// arenaTable is the "arena" and "offheap" kinds: the skiplist over arena
// chunks. It owns one reference to each of its two arenas (nodes, and
// records: the layout above); each open iterator holds another, so Close
// returns the chunks only when the last reader finishes. The record arena
// shares the node arena's pool (a private one when Options.Pool is nil, which
// the node arena closes on its last release), so every holder releases the
// record arena first.
// Put and Get run inside the guard, so Close waits for those in flight
// before it drops the table's reference, and those that start after it
// return ErrClosed or nothing without touching the chunks.
type arenaTable struct {
	sl        skiplist[uint64, arena.Handle, arenaStore]
	a, va     *arena.Arena // nodes, records
	guard     opGuard
	closeOnce sync.Once
}

func newArenaTable(o Options, offHeap bool) (Memtable, error) {
	if o.Pool != nil && o.Pool.OffHeapRequested() != offHeap {
		return nil, fmt.Errorf("%w: kind %s needs an off-heap=%v pool", ErrInvalidOption, kindName(offHeap), offHeap)
	}
	a, err := arena.New(arena.Options{Pool: o.Pool, ChunkSize: o.ChunkSize, OffHeap: offHeap, MaxAlloc: o.MaxAlloc, Overflow: nodeOverflow})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	va, err := arena.New(arena.Options{Pool: a.Pool(), MaxAlloc: o.MaxAlloc})
	if err != nil {
		a.Release()
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	t := &arenaTable{a: a, va: va, guard: newOpGuard()}
	st := newArenaStore(a, va)
	head, _, err := st.newNode(nil, nil, headHeight)
	if err != nil {
		t.release()
		return nil, err
	}
	t.sl.init(st, head)
	return t, nil
}

func kindName(offHeap bool) string {
	if offHeap {
		return "offheap"
	}
	return "arena"
}

func (t *arenaTable) Put(key, value []byte) error {
	if err := CheckEntry(key, value); err != nil {
		return err
	}
	g := t.guard.enter()
	if g == nil {
		return ErrClosed
	}
	defer t.guard.leave(g)
	return t.sl.put(key, value)
}

func (t *arenaTable) Get(key []byte) ([]byte, bool) {
	g := t.guard.enter()
	if g == nil {
		return nil, false
	}
	defer t.guard.leave(g)
	return t.sl.get(key)
}

// release drops one reference on each arena, the record arena first (it may
// share the node arena's private pool, which the node arena's last release
// closes).
func (t *arenaTable) release() {
	t.va.Release()
	t.a.Release()
}

// All takes a reference on the arenas inside the guard (it cannot fail
// there: the table's own reference is still held), then iterates outside it,
// so a long scan holds the chunks, not Close.
func (t *arenaTable) All() iter.Seq2[[]byte, []byte] { return t.From(nil) }

// From is All from the first key at or above start (Seeker), with All's
// references on the arenas.
func (t *arenaTable) From(start []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		g := t.guard.enter()
		if g == nil {
			return
		}
		err := t.a.Retain()
		if err == nil {
			if err = t.va.Retain(); err != nil {
				t.a.Release()
			}
		}
		t.guard.leave(g)
		if err != nil {
			panic("memtable: arena released while the table is open: " + err.Error())
		}
		defer t.release()
		t.sl.from(start)(yield)
	}
}

func (t *arenaTable) Len() int    { return int(t.sl.n.Load()) }
func (t *arenaTable) Size() int64 { return t.sl.size.Load() }

// Close stops new operations, waits for the Puts and Gets in flight, then
// drops the table's references on the arenas.
func (t *arenaTable) Close() error {
	t.closeOnce.Do(func() {
		t.guard.close()
		t.release()
	})
	return nil
}
