package memtable

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/writegc/writegc/internal/slowdown"
)

// maxHeight bounds tower heights. With branching factor 5/8 it covers
// (8/5)^40, about 1.5e8 keys, before search paths lengthen.
const maxHeight = 40

// nodeStore is the memory layout a skiplist runs over: it creates nodes and
// reads and links them through references of type R, whose zero value is
// nil. The heap layout uses *heapNode; the arena layouts use 64-bit link
// words (a compact arena offset plus the first four key bytes of the node it
// points to), so the one algorithm in skiplist runs over both. V names a
// record: the memory that holds one Put's value (the arena's key-and-value
// record, the heap's value box), made before the node that will point at
// it (see putLarge).
//
// prefix returns the first four bytes of n's key, big-endian and
// zero-padded (keyPrefix). A layout that keeps it in the reference itself
// (the arena's link words) lets a search decide most comparisons without
// touching the next node at all; the heap layout must load the node and its
// key to answer, as any pointer-linked skiplist does.
//
// Every method must be safe for concurrent use. Links are read and written
// with atomic operations, except that setNext may use a plain store: it
// writes a link of n at a level n is not linked at yet, which no other
// goroutine reads before the compare-and-swap that links n there. A node's
// key, height, value and initial tower are written before the node is
// published by the compare-and-swap that links it at level 0, so any
// goroutine that can reach it sees them. A record is private to the Put that
// made it until that Put publishes it, by the CAS that links the node that
// points at it or by setRecord's atomic store; the Put writes the record's
// value bytes (plain stores) before either, and never after.
type nodeStore[R comparable, V any] interface {
	// newNode makes an unpublished node holding copies of key and value,
	// with a tower of the given height whose links are all nil. It returns
	// the bytes it charged, also when it fails after allocating some.
	newNode(key, value []byte, height int) (R, int64, error)
	// newRecord makes an unpublished record for key and value and returns
	// it, the bytes it charged, and dst: the record's last len(dst) value
	// bytes, uninitialised, which the caller must fill with the last
	// len(dst) bytes of value before it publishes the record. A layout may
	// copy all or part of value itself: the heap's does (Go zeroes any
	// memory that it does not copy into as it allocates it, which would
	// cost a second pass), the arena's copies none of it. Whatever else the
	// record holds (the arena's header and key) is written by newRecord.
	newRecord(key, value []byte) (rec V, dst []byte, charged int64, err error)
	// newNodeAt is newNode for a value already in rec (from newRecord with
	// the same key, and filled): the node points at rec; the bytes it
	// returns are the node's alone (rec's were charged by newRecord).
	newNodeAt(key []byte, rec V, height int) (R, int64, error)
	next(n R, level int) R
	setNext(n R, level int, to R) // before n is linked at level only
	casNext(n R, level int, old, new R) bool
	prefix(n R) uint32
	key(n R) []byte
	value(n R) []byte
	// entry is key and value in one call (a scan's step).
	entry(n R) (key, value []byte)
	// setValue atomically replaces n's value with a copy of value and
	// returns the bytes it charged.
	setValue(n R, value []byte) (int64, error)
	// setRecord atomically replaces n's value with rec's (filled, made for
	// n's key), charging nothing more.
	setRecord(n R, rec V)
}

// skiplist is a lock-free concurrent skiplist (insert-only, forward links):
// writers link a new node level by level with compare-and-swap, bottom up,
// and re-search only the level whose CAS failed. Overwrites swap the value
// reference atomically, so readers see the old or the new value whole.
type skiplist[R comparable, V any, S nodeStore[R, V]] struct {
	store  S
	head   R
	height atomic.Int32  // current list height, 1..maxHeight
	n      atomic.Int64  // distinct keys
	size   atomic.Int64  // bytes charged
	seq    atomic.Uint64 // tower-height sequence, used only when SeedEnv is set
}

func (s *skiplist[R, V, S]) init(store S, head R) {
	s.store, s.head = store, head
	s.height.Store(1)
	if towerSeeded {
		s.seq.Store(towerSeed*0xd1342543de82ef95 + lists.Add(1))
	}
}

// randomHeight draws a tower height with P(h > k) = (5/8)^k.
//
// Why 5/8 and not the 1/4 of most skiplists: a search's cost here is cache
// misses on the nodes it moves onto, about (1-p)/p per level over
// log_{1/p}(n) levels, or ((1-p)/p)/ln(1/p) * ln(n): 2.16 ln(n) at p = 1/4,
// 1.44 ln(n) at p = 1/2, 1.28 ln(n) at p = 5/8. The comparisons that stop a
// level ("next is past the key") are free with the arena's prefix-carrying
// links, so more levels cost little: 8 bytes of tower per level per node
// and a few cached loads. Past 5/8 that little wins: measured at 1M keys,
// 5/8 inserted about 3% faster than 1/2 and 11/16 about 1% faster.
//
// Each 3-bit group of a random word continues the tower with probability
// 5/8; a word gives 21 groups. The words come from rand.Uint64, or, when
// SeedEnv is set, from the list's own seeded sequence (towerWord).
func (s *skiplist[R, V, S]) randomHeight() int {
	r, left := s.towerWord(), 21
	h := 1
	for h < maxHeight && r&7 < 5 {
		h++
		r >>= 3
		if left--; left == 0 {
			r, left = s.towerWord(), 21
		}
	}
	return h
}

// SeedEnv names the environment variable that makes tower heights
// reproducible: set to a number (WRITEGC_SKIPLIST_SEED=1), every skiplist
// of the process draws its heights from a sequence fixed by that number and
// by the order the lists were made in, so a single-goroutine benchmark
// builds the same lists, and executes the same instructions, in every run
// (benchgate's instruction mode needs that; with per-process random
// heights Put's instructions per op varied by 8-13% between runs). Unset,
// heights come from rand.Uint64, seeded per process: a caller that chooses
// the keys cannot know which of them will be tall. It is read once, at
// start-up.
const SeedEnv = "WRITEGC_SKIPLIST_SEED"

// towerSeed is SeedEnv's value and towerSeeded whether it was set; lists
// counts the skiplists made, to give each its own sequence.
var (
	towerSeed, towerSeeded = seedFromEnv()
	lists                  atomic.Uint64
)

func seedFromEnv() (uint64, bool) {
	v := os.Getenv(SeedEnv)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		panic("memtable: " + SeedEnv + "=" + v + ": want an unsigned number")
	}
	return n, true
}

// towerWord is 64 random bits: rand.Uint64, or the next word of the list's
// seeded sequence (splitmix64 over an atomic counter, so concurrent Puts
// each get a distinct word without a lock).
func (s *skiplist[R, V, S]) towerWord() uint64 {
	if !towerSeeded {
		return rand.Uint64()
	}
	z := s.seq.Add(0x9e3779b97f4a7c15)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// keyPrefix is the first four bytes of key, big-endian, zero-padded. If
// keyPrefix(a) < keyPrefix(b) then a < b; equal prefixes decide nothing.
func keyPrefix(key []byte) uint32 {
	if len(key) >= 4 {
		return binary.BigEndian.Uint32(key)
	}
	var b [4]byte
	copy(b[:], key)
	return binary.BigEndian.Uint32(b[:])
}

// findSplice walks level from start and returns the last node whose key is
// below key and the node after it (nil or a key >= key). kp is
// keyPrefix(key).
func (s *skiplist[R, V, S]) findSplice(key []byte, kp uint32, level int, start R) (prev, next R) {
	var zero R
	prev = start
	for {
		next = s.store.next(prev, level)
		if next == zero {
			return prev, next
		}
		if np := s.store.prefix(next); np > kp || np == kp && bytes.Compare(s.store.key(next), key) >= 0 {
			return prev, next
		}
		prev = next
	}
}

// isKey reports whether node n (not nil) holds key.
func (s *skiplist[R, V, S]) isKey(n R, key []byte, kp uint32) bool {
	return s.store.prefix(n) == kp && bytes.Equal(s.store.key(n), key)
}

// largeValue is the value size from which put copies the value while it
// searches (putLarge) rather than after. Below it the overlap does not pay:
// measured at 100K keys on recycled chunks (Puts of the two paths
// interleaved in one process, on a shared machine), putLarge was about 5%
// slower than put at 1 KiB values, 2-4% faster at 2 and 4 KiB, and 7%
// faster at 10 KiB.
const largeValue = 2 << 10

func (s *skiplist[R, V, S]) put(key, value []byte) error {
	slowdown.Inject(slowdown.MemtablePut)
	if len(value) >= largeValue {
		return s.putLarge(key, value)
	}
	var zero R
	var prev, next [maxHeight]R
	kp := keyPrefix(key)
	listHeight := int(s.height.Load())
	x := s.head
	for level := listHeight - 1; level >= 0; level-- {
		x, next[level] = s.findSplice(key, kp, level, x)
		prev[level] = x
	}
	if nx := next[0]; nx != zero && s.isKey(nx, key, kp) {
		return s.overwrite(nx, value)
	}
	h := s.grow(listHeight, &prev, &next)
	n, charged, err := s.store.newNode(key, value, h)
	if err != nil {
		s.size.Add(charged) // what newNode allocated before it failed
		return err
	}
	if dup := s.link(key, kp, n, h, listHeight, &prev, &next); dup != zero {
		// Another writer inserted the same key first. Our node is not
		// linked anywhere: abandon it (its bytes stay charged) and
		// overwrite theirs.
		s.size.Add(charged)
		return s.overwrite(dup, value)
	}
	s.n.Add(1)
	s.size.Add(charged)
	return nil
}

// putLarge is put for values of largeValue bytes or more. It makes the
// record first and copies the value into it in pieces while it searches: a
// search is a chain of dependent cache misses (latency-bound) and the copy
// streams (bandwidth-bound), so a piece copied between a load of a link and
// the comparison that needs it runs while that load misses, and its stores
// drain while the next one does. Only the lowest levels miss (coldLevels),
// so the pieces go there; whatever is left is copied after the search. The
// node is then made pointing at the filled record, or, if the key is there
// already, the record becomes its value: one copy either way.
//
// Accounting: a record is charged whatever happens to it. If newNodeAt
// fails (ErrFull), Put returns the error as put does, and the unused record
// stays charged: it holds arena bytes until Close. A node abandoned to a
// racing insert of the same key stays charged, as in put, and its record
// becomes the winner's value. Size is updated once, just before the node is
// linked: an atomic add waits for the copy's stores to drain, as the
// linking CAS does anyway, so none may come between the pieces and the
// node's allocation.
func (s *skiplist[R, V, S]) putLarge(key, value []byte) error {
	var zero R
	rec, dst, charged, err := s.store.newRecord(key, value)
	if err != nil {
		return err
	}
	var prev, next [maxHeight]R
	kp := keyPrefix(key)
	listHeight := int(s.height.Load())
	cold := min(coldLevels(s.n.Load()), listHeight)
	// Spread the value over the links a search of the cold levels loads:
	// 1 + (1-p)/p = 13/8 per level on average.
	c := pieceCopier{dst: dst, src: value[len(value)-len(dst):], piece: (8*len(dst) + 13*cold - 1) / (13 * cold)}
	x := s.head
	for level := listHeight - 1; level >= 0; level-- {
		if level >= cold {
			x, next[level] = s.findSplice(key, kp, level, x)
		} else {
			x, next[level] = s.findSpliceCopying(key, kp, level, x, &c)
		}
		prev[level] = x
	}
	copy(c.dst, c.src)
	if nx := next[0]; nx != zero && s.isKey(nx, key, kp) {
		s.store.setRecord(nx, rec)
		s.size.Add(charged)
		return nil
	}
	h := s.grow(listHeight, &prev, &next)
	n, nodeCharged, err := s.store.newNodeAt(key, rec, h)
	if err != nil {
		s.size.Add(charged)
		return err
	}
	s.size.Add(charged + nodeCharged)
	if dup := s.link(key, kp, n, h, listHeight, &prev, &next); dup != zero {
		s.store.setRecord(dup, rec) // our node is abandoned, as in put
		return nil
	}
	s.n.Add(1)
	return nil
}

// coldLevels is how many of the lowest levels of a list of n keys a
// search misses the cache on when large copies keep evicting it: those with
// more than about 4096 nodes. Level l holds about n*(5/8)^l nodes, so they
// are the levels below log_{8/5}(n/4096), about 1.5*log2(n/4096); at least
// one.
func coldLevels(n int64) int {
	return max((bits.Len64(uint64(n)>>12)*3+1)/2, 1)
}

// grow draws a height for a new node, raises the list's height to it if it
// is higher, and starts the splices of the levels above listHeight (the
// height the search saw) at the head.
func (s *skiplist[R, V, S]) grow(listHeight int, prev, next *[maxHeight]R) int {
	var zero R
	h := s.randomHeight()
	for {
		cur := int(s.height.Load())
		if h <= cur || s.height.CompareAndSwap(int32(cur), int32(h)) {
			break
		}
	}
	for level := listHeight; level < h; level++ {
		prev[level], next[level] = s.head, zero
	}
	return h
}

// link links the unpublished node n of height h at every level, bottom up,
// from the splices prev and next that a search of key found at listHeight
// levels (grow filled the rest). It returns nil, or the node of another
// writer that inserted key first, in which case n is linked nowhere.
func (s *skiplist[R, V, S]) link(key []byte, kp uint32, n R, h, listHeight int, prev, next *[maxHeight]R) R {
	var zero R
	for level := range h {
		for {
			if prev[level] == s.head && level >= listHeight {
				// A level the list grew into since the search: search it now.
				prev[level], next[level] = s.findSplice(key, kp, level, s.head)
			}
			s.store.setNext(n, level, next[level])
			if s.store.casNext(prev[level], level, next[level], n) {
				break
			}
			// Lost a race at this level: re-search it from where we were.
			prev[level], next[level] = s.findSplice(key, kp, level, prev[level])
			if level == 0 {
				if nx := next[0]; nx != zero && s.isKey(nx, key, kp) {
					return nx
				}
			}
		}
	}
	return zero
}

func (s *skiplist[R, V, S]) overwrite(n R, value []byte) error {
	charged, err := s.store.setValue(n, value)
	if err != nil {
		return err
	}
	s.size.Add(charged)
	return nil
}

func (s *skiplist[R, V, S]) get(key []byte) ([]byte, bool) {
	var zero R
	kp := keyPrefix(key)
	x := s.head
	var next R
	for level := int(s.height.Load()) - 1; level >= 0; level-- {
		x, next = s.findSplice(key, kp, level, x)
	}
	if next != zero && s.isKey(next, key, kp) {
		return s.store.value(next), true
	}
	return nil, false
}

// from yields the entries from the first key at or above start (every
// entry when start is nil) in ascending order.
func (s *skiplist[R, V, S]) from(start []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		var zero R
		n := s.store.next(s.head, 0)
		if start != nil {
			kp := keyPrefix(start)
			x := s.head
			for level := int(s.height.Load()) - 1; level >= 0; level-- {
				x, n = s.findSplice(start, kp, level, x)
			}
		}
		for ; n != zero; n = s.store.next(n, 0) {
			if !yield(s.store.entry(n)) {
				return
			}
		}
	}
}

// pieceCopier copies src into dst a piece at a time.
type pieceCopier struct {
	dst, src []byte // what is left to copy
	piece    int
}

func (c *pieceCopier) step() {
	if len(c.src) == 0 {
		return
	}
	n := min(c.piece, len(c.src))
	copy(c.dst[:n], c.src[:n])
	c.dst, c.src = c.dst[n:], c.src[n:]
}

// findSpliceCopying is findSplice that copies a piece of c after each load
// of a link, before the comparison that depends on the load. It must stay
// findSplice's walk.
func (s *skiplist[R, V, S]) findSpliceCopying(key []byte, kp uint32, level int, start R, c *pieceCopier) (prev, next R) {
	var zero R
	prev = start
	for {
		next = s.store.next(prev, level)
		c.step()
		if next == zero {
			return prev, next
		}
		if np := s.store.prefix(next); np > kp || np == kp && bytes.Compare(s.store.key(next), key) >= 0 {
			return prev, next
		}
		prev = next
	}
}
