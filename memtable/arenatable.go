package memtable

import (
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/writegc/writegc/arena"
)

func init() {
	register("arena", func(o Options) (Memtable, error) { return newArenaTable(o, false) })
	register("offheap", func(o Options) (Memtable, error) { return newArenaTable(o, true) })
}

// Arena node layout, 8-byte aligned, one allocation per new key in the
// table's node arena:
//
//	0        8         12       16                16+8h
//	| value  | keyLen  | height | tower[h] uint64 | key bytes |
//
// value is the handle of a value record [len uint32][bytes] in a second
// arena of the table, its value arena (same pool). Values live apart from
// nodes so that the node arena holds only what a search reads: with 16-byte
// keys and 100-byte values a node is about 48 bytes instead of 150, so the
// nodes a search visits (one cache miss each, the cost of an insert) are
// spread over a third of the pages and cache lines, and the upper levels of
// the list stay cached and in the TLB. The price is one more cache miss per
// Get (the record is not next to the key) and per entry of a scan. An
// overwrite allocates a new record and swaps the handle. Each tower entry is
// a link word naming the next node at that level: its high 32 bits are the
// first four bytes of that node's key (keyPrefix), its low 32 bits the
// node's compact address in the node arena (chunk index + 1 and offset / 8,
// packed by the chunk size). A search compares against the prefix in the
// link and touches the next node only to move onto it or to break a prefix
// tie. Nothing here is a Go pointer: the collector never looks inside a
// chunk.
//
// Limits: compact addresses are 32 bits of 8-byte units, so one memtable
// addresses at most 32 GiB of node chunks (with 2 MiB chunks: 16383 chunks);
// beyond that Put returns ErrFull.
const (
	offValue   = 0
	offKeyLen  = 8
	offHeight  = 12
	offTower   = 16
	valueHdr   = 4
	headHeight = maxHeight
)

// arenaNode is the fixed part of a node, for documentation and the
// no-pointers test; the code addresses fields by offset.
type arenaNode struct {
	value  uint64
	keyLen uint32
	height uint32
	tower  [maxHeight]uint64
}

// arenaStore is the nodeStore of the arena layouts. Its references are link
// words (see the layout above); the zero link is nil.
type arenaStore struct {
	a     *arena.Arena // nodes
	va    *arena.Arena // value records
	shift uint         // bits of offset/8 in a compact address
}

func newArenaStore(a, va *arena.Arena) arenaStore {
	return arenaStore{a: a, va: va, shift: uint(bits.Len(uint(a.Pool().ChunkSize()-1))) - 3}
}

// handle turns a link word back into the arena handle of its node.
func (s arenaStore) handle(l uint64) arena.Handle {
	c := uint32(l)
	return arena.Handle(uint64(c>>s.shift)<<32 | uint64(c&(1<<s.shift-1))<<3)
}

func (s arenaStore) ptr(l uint64) unsafe.Pointer { return s.a.Pointer(s.handle(l)) }

func (s arenaStore) word(l uint64, off uintptr) *uint64 {
	return (*uint64)(unsafe.Add(s.ptr(l), off))
}

// newValue copies value into a new record of the value arena.
func (s arenaStore) newValue(value []byte) (arena.Handle, int64, error) {
	rec, b, err := s.va.AllocBytes(valueHdr + len(value))
	if err != nil {
		return 0, 0, err
	}
	binary.LittleEndian.PutUint32(b, uint32(len(value)))
	copy(b[valueHdr:], value)
	return rec, int64(len(b)), nil
}

func (s arenaStore) newNode(key, value []byte, height int) (uint64, int64, error) {
	rec, charged, err := s.newValue(value)
	if err != nil {
		return 0, 0, err
	}
	keyOff := offTower + 8*height
	size := keyOff + len(key)
	h, p, err := s.a.AllocAlignedPointer(size)
	if err != nil {
		return 0, 0, err
	}
	chunk1, off := uint64(h>>32), uint64(uint32(h))
	c := chunk1<<s.shift | off>>3
	if c > math.MaxUint32 || off&7 != 0 {
		return 0, 0, ErrFull
	}
	b := unsafe.Slice((*byte)(p), size)
	binary.LittleEndian.PutUint32(b[offKeyLen:], uint32(len(key)))
	binary.LittleEndian.PutUint32(b[offHeight:], uint32(height))
	clear(b[offTower:keyOff])
	copy(b[keyOff:], key)
	// Plain store: the node is not published yet (its publishing CAS orders
	// it), and a locked store would wait for the lines above to be written.
	*(*uint64)(p) = uint64(rec)
	return uint64(keyPrefix(key))<<32 | c, charged + int64(size) + 7, nil // +7: worst-case alignment padding
}

func (s arenaStore) next(n uint64, level int) uint64 {
	return atomic.LoadUint64(s.word(n, offTower+8*uintptr(level)))
}

// setNext is a plain store: n is not linked at level yet, so no other
// goroutine reads this link until the CAS that links n there orders it.
func (s arenaStore) setNext(n uint64, level int, to uint64) {
	*s.word(n, offTower+8*uintptr(level)) = to
}

func (s arenaStore) casNext(n uint64, level int, old, new uint64) bool {
	return atomic.CompareAndSwapUint64(s.word(n, offTower+8*uintptr(level)), old, new)
}

func (s arenaStore) prefix(n uint64) uint32 { return uint32(n >> 32) }

func (s arenaStore) key(n uint64) []byte {
	p := s.ptr(n)
	kl := *(*uint32)(unsafe.Add(p, offKeyLen))
	h := *(*uint32)(unsafe.Add(p, offHeight))
	return unsafe.Slice((*byte)(unsafe.Add(p, offTower+8*uintptr(h))), kl)
}

func (s arenaStore) value(n uint64) []byte {
	rec := arena.Handle(atomic.LoadUint64(s.word(n, offValue)))
	p := s.va.Pointer(rec)
	vl := binary.LittleEndian.Uint32(unsafe.Slice((*byte)(p), valueHdr))
	return unsafe.Slice((*byte)(unsafe.Add(p, valueHdr)), vl)
}

func (s arenaStore) setValue(n uint64, value []byte) (int64, error) {
	rec, charged, err := s.newValue(value)
	if err != nil {
		return 0, err
	}
	atomic.StoreUint64(s.word(n, offValue), uint64(rec))
	return charged, nil
}

// arenaTable is the "arena" and "offheap" kinds: the skiplist over arena
// chunks. It owns one reference to each of its two arenas (nodes, and value
// records: the layout above); each open iterator holds another, so Close
// returns the chunks only when the last reader finishes. The value arena
// shares the node arena's pool (a private one when Options.Pool is nil, which
// the node arena closes on its last release), so every holder releases the
// value arena first.
// Put and Get run inside the guard, so Close waits for those in flight
// before it drops the table's reference, and those that start after it
// return ErrClosed or nothing without touching the chunks.
type arenaTable struct {
	sl        skiplist[uint64, arenaStore]
	a, va     *arena.Arena // nodes, value records
	guard     opGuard
	closeOnce sync.Once
}

func newArenaTable(o Options, offHeap bool) (Memtable, error) {
	if o.Pool != nil && o.Pool.OffHeapRequested() != offHeap {
		return nil, fmt.Errorf("%w: kind %s needs an off-heap=%v pool", ErrInvalidOption, kindName(offHeap), offHeap)
	}
	a, err := arena.New(arena.Options{Pool: o.Pool, ChunkSize: o.ChunkSize, OffHeap: offHeap, MaxAlloc: o.MaxAlloc})
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
	if err := checkKV(key, value); err != nil {
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

// release drops one reference on each arena, the value arena first (it may
// share the node arena's private pool, which the node arena's last release
// closes).
func (t *arenaTable) release() {
	t.va.Release()
	t.a.Release()
}

// All takes a reference on the arenas inside the guard (it cannot fail
// there: the table's own reference is still held), then iterates outside it,
// so a long scan holds the chunks, not Close.
func (t *arenaTable) All() iter.Seq2[[]byte, []byte] {
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
		t.sl.all()(yield)
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
