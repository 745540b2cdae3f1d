package memtable

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/writegc/writegc/arena"
	"github.com/writegc/writegc/internal/ptrcheck"
)

func newKind(t testing.TB, kind string) Memtable {
	t.Helper()
	m, err := New(kind, Options{ChunkSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestKinds(t *testing.T) {
	want := []string{"arena", "btree", "heap", "offheap"}
	if got := Kinds(); !slices.Equal(got, want) {
		t.Fatalf("Kinds() = %v, want %v", got, want)
	}
	_, err := New("nope", Options{})
	if !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), "arena, btree, heap, offheap") {
		t.Fatalf("unknown kind error = %v", err)
	}
	for _, k := range Kinds() {
		m, err := New(k, Options{}) // the zero Options works
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if err := m.Put([]byte("k"), []byte("v")); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		m.Close()
	}
}

func TestPoolMismatch(t *testing.T) {
	p, _ := arena.NewPool(arena.PoolOptions{})
	if _, err := New("offheap", Options{Pool: p}); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("offheap kind on an on-heap pool: %v", err)
	}
	if _, err := New("arena", Options{ChunkSize: 3}); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("bad chunk size: %v", err)
	}
}

// model checks a memtable against a map and a sorted key list.
type model map[string]string

func (md model) check(t *testing.T, m Memtable) {
	t.Helper()
	if m.Len() != len(md) {
		t.Fatalf("Len() = %d, model has %d", m.Len(), len(md))
	}
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	i := 0
	for k, v := range m.All() {
		if i >= len(keys) {
			t.Fatalf("All yields extra key %q", k)
		}
		if string(k) != keys[i] || string(v) != md[keys[i]] {
			t.Fatalf("All[%d] = %q=%.20q, want %q=%.20q", i, k, v, keys[i], md[keys[i]])
		}
		i++
	}
	if i != len(keys) {
		t.Fatalf("All yielded %d keys, want %d", i, len(keys))
	}
	for k, v := range md {
		got, ok := m.Get([]byte(k))
		if !ok || string(got) != v {
			t.Fatalf("Get(%q) = %.20q, %v; want %.20q", k, got, ok, v)
		}
	}
}

func randValue(r *rand.Rand) []byte {
	var n int
	switch r.IntN(10) {
	case 0:
		n = 0
	case 1:
		n = 10 << 10
	case 2:
		n = 300 << 10 // above MaxAlloc: a jumbo allocation in the arena kinds
	default:
		n = r.IntN(200)
	}
	v := bytes.Repeat([]byte{byte(r.Uint32())}, n)
	for i := range min(n, 16) {
		v[i] = byte(r.Uint32())
	}
	return v
}

func TestModel(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			m := newKind(t, kind)
			md := model{}
			for i := range 3000 {
				key := []byte(fmt.Sprintf("k%04d", r.IntN(800))) // many overwrites
				if r.IntN(20) == 0 {
					key = bytes.Repeat([]byte{byte(r.IntN(256))}, 1+r.IntN(100))
				}
				if r.IntN(3) == 0 {
					got, ok := m.Get(key)
					want, wok := md[string(key)]
					if ok != wok || string(got) != want {
						t.Fatalf("op %d Get(%q) = %v, want %v", i, key, ok, wok)
					}
					continue
				}
				v := randValue(r)
				if err := m.Put(key, v); err != nil {
					t.Fatal(err)
				}
				md[string(key)] = string(v)
				if len(v) > 0 { // the caller reuses its buffer
					v[0] ^= 0xff
				}
			}
			md.check(t, m)
			if m.Size() <= 0 {
				t.Fatalf("Size() = %d", m.Size())
			}
		})
	}
}

func TestConcurrentWriters(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(kind, func(t *testing.T) {
			m := newKind(t, kind)
			const writers, per, space = 4, 3000, 2000
			var wg sync.WaitGroup
			final := make([]model, writers)
			for w := range writers {
				wg.Add(1)
				final[w] = model{}
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 9))
					for range per {
						k := fmt.Sprintf("key-%05d", r.IntN(space))
						v := fmt.Sprintf("w%d-%d", w, r.IntN(1000))
						if err := m.Put([]byte(k), []byte(v)); err != nil {
							t.Error(err)
							return
						}
						final[w][k] = v
					}
				}()
			}
			// A reader scans while writers write: order must hold throughout.
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					var last []byte
					for k, v := range m.All() {
						if last != nil && bytes.Compare(last, k) >= 0 {
							t.Errorf("All out of order: %q then %q", last, k)
							return
						}
						if !strings.HasPrefix(string(v), "w") {
							t.Errorf("torn value %q", v)
							return
						}
						last = append(last[:0], k...)
					}
				}
			}()
			wg.Wait()
			// Every key written exists, and its value is one some writer wrote last
			// for that key.
			union := map[string]bool{}
			for _, f := range final {
				for k := range f {
					union[k] = true
				}
			}
			if m.Len() != len(union) {
				t.Fatalf("Len = %d, want %d", m.Len(), len(union))
			}
			n := 0
			for k, v := range m.All() {
				n++
				ok := false
				for _, f := range final {
					if f[string(k)] == string(v) {
						ok = true
					}
				}
				if !ok {
					t.Fatalf("key %q has value %q that no writer wrote last", k, v)
				}
			}
			if n != len(union) {
				t.Fatalf("All yielded %d keys, want %d", n, len(union))
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, kind := range Kinds() {
		m := newKind(t, kind)
		if err := m.Put(nil, []byte("v")); !errors.Is(err, ErrKeySize) {
			t.Errorf("%s: empty key: %v", kind, err)
		}
		if err := m.Put(make([]byte, MaxKeySize+1), nil); !errors.Is(err, ErrKeySize) {
			t.Errorf("%s: huge key: %v", kind, err)
		}
		if err := m.Put([]byte("k"), make([]byte, MaxValueSize+1)); !errors.Is(err, ErrValueSize) {
			t.Errorf("%s: huge value: %v", kind, err)
		}
		if err := m.Put(make([]byte, MaxKeySize), make([]byte, MaxValueSize)); err != nil {
			t.Errorf("%s: largest key and value: %v", kind, err)
		}
		if m.Len() != 1 {
			t.Errorf("%s: Len = %d after one valid Put", kind, m.Len())
		}
	}
}

func TestUseAfterClose(t *testing.T) {
	for _, kind := range Kinds() {
		m, _ := New(kind, Options{})
		m.Put([]byte("a"), []byte("1"))
		m.Put([]byte("b"), []byte("2"))
		// An iterator open before Close keeps the memory alive.
		n := 0
		for k := range m.All() {
			if n == 0 {
				m.Close()
			}
			if len(k) != 1 {
				t.Fatalf("%s: key %q read after Close is corrupt", kind, k)
			}
			n++
		}
		if err := m.Put([]byte("c"), nil); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: Put after Close = %v", kind, err)
		}
		if _, ok := m.Get([]byte("a")); ok {
			t.Errorf("%s: Get after Close found a key", kind)
		}
		for range m.All() {
			t.Errorf("%s: All after Close yields", kind)
		}
		if err := m.Close(); err != nil {
			t.Errorf("%s: second Close = %v", kind, err)
		}
	}
}

func TestArenaChunksReturnToPool(t *testing.T) {
	p, _ := arena.NewPool(arena.PoolOptions{ChunkSize: 64 << 10, MaxPooled: 64, OffHeap: true})
	m, err := New("offheap", Options{Pool: p})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		m.Put([]byte(fmt.Sprint(i)), make([]byte, 100))
	}
	live := p.Stats().ChunksLive
	m.Close()
	s := p.Stats()
	if live < 5 || s.ChunksLive != 0 || s.ChunksPooled != live {
		t.Fatalf("live before close %d, after: %+v", live, s)
	}
}

func TestArenaNodeHoldsNoPointers(t *testing.T) {
	if ptrcheck.HasPointers(reflect.TypeFor[arenaNode]()) {
		t.Fatal("arenaNode holds pointers")
	}
	if ptrcheck.HasPointers(reflect.TypeFor[arena.Handle]()) {
		t.Fatal("arena.Handle holds pointers")
	}
	if !ptrcheck.HasPointers(reflect.TypeFor[heapNode]()) {
		t.Fatal("check is broken: heapNode has pointers")
	}
	// The layout the doc draws: an 8-byte record, then 8 bytes per level.
	if unsafe.Offsetof(arenaNode{}.tower) != offTower || unsafe.Sizeof(arenaNode{}) != 8+8*towerLen || towerLen < maxHeight || towerLen&(towerLen-1) != 0 {
		t.Fatalf("arenaNode: tower at %d (code: %d), size %d", unsafe.Offsetof(arenaNode{}.tower), offTower, unsafe.Sizeof(arenaNode{}))
	}
}

// FuzzMemtable runs one sequence of Puts against every kind and a model.
// The first input byte picks the arena kinds' MaxAlloc, on both sides of
// their 4 KiB chunk (above it New must fail); value lengths reach past the
// chunk size, so nodes cross every boundary of the arena. An op whose key
// length byte is 255 closes every memtable: later Puts must return
// ErrClosed, Gets find nothing and All yield nothing.
func FuzzMemtable(f *testing.F) {
	f.Add([]byte("\x00\x01a\x02bb\x01a"))
	f.Add([]byte("\x05\x01a\xfcbb\x02a\xfd"))         // MaxAlloc = chunk size, nodes near it
	f.Add([]byte("\x03\x01a\x02bb\xff\x00\x01a\x03")) // Close, then a Put
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		const cs = 4 << 10
		maxAlloc := []int{0, 1, 512, cs - 8, cs - 7, cs, cs + 1}[int(ops[0])%7]
		ops = ops[1:]
		ms := map[string]Memtable{}
		for _, k := range Kinds() {
			m, err := New(k, Options{ChunkSize: cs, MaxAlloc: maxAlloc})
			if maxAlloc > cs && (k == "arena" || k == "offheap") {
				if !errors.Is(err, ErrInvalidOption) {
					t.Fatalf("%s: MaxAlloc %d > chunk %d: New = %v", k, maxAlloc, cs, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ms[k] = m
		}
		md, closed := model{}, false
		for len(ops) >= 2 {
			if ops[0] == 255 {
				for _, m := range ms {
					m.Close()
				}
				closed, ops = true, ops[1:]
				continue
			}
			kl, vl := int(ops[0]%8), int(ops[1])
			ops = ops[2:]
			if kl > len(ops) {
				break
			}
			key := ops[:kl]
			ops = ops[kl:]
			v := bytes.Repeat([]byte{byte(vl)}, vl*17) // up to 4335 B
			for k, m := range ms {
				err := m.Put(key, v)
				switch {
				case len(key) == 0 && !errors.Is(err, ErrKeySize):
					t.Fatalf("%s: Put(%q) = %v, want ErrKeySize", k, key, err)
				case len(key) > 0 && closed && !errors.Is(err, ErrClosed):
					t.Fatalf("%s: Put after Close = %v, want ErrClosed", k, err)
				case len(key) > 0 && !closed && err != nil:
					t.Fatalf("%s: Put(%q) = %v", k, key, err)
				}
			}
			if len(key) > 0 && !closed {
				md[string(key)] = string(v)
			}
		}
		for k, m := range ms {
			if !closed {
				md.check(t, m)
				continue
			}
			for range m.All() {
				t.Fatalf("%s: All after Close yields", k)
			}
			for key := range md {
				if _, ok := m.Get([]byte(key)); ok {
					t.Fatalf("%s: Get after Close found %q", k, key)
				}
			}
		}
	})
}

func TestKeyPrefixOrder(t *testing.T) {
	keys := [][]byte{{0}, {0, 0}, {0, 0, 0, 0, 0}, {0, 1}, {1}, {1, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 2, 3, 4}, {1, 2, 3, 5}, {0xff}, {0xff, 0xff, 0xff, 0xff, 0xff}}
	for _, a := range keys {
		for _, b := range keys {
			if keyPrefix(a) < keyPrefix(b) && bytes.Compare(a, b) >= 0 {
				t.Errorf("prefix(%x) < prefix(%x) but the keys are not ordered", a, b)
			}
		}
	}
}

func TestArenaLinkRoundTrip(t *testing.T) {
	for _, cs := range []int{4 << 10, 64 << 10, 2 << 20, 3 << 20} {
		a, err := arena.New(arena.Options{ChunkSize: cs, MaxAlloc: 1 << 10, Overflow: nodeOverflow})
		if err != nil {
			t.Fatal(err)
		}
		va, err := arena.New(arena.Options{Pool: a.Pool(), MaxAlloc: 1 << 10})
		if err != nil {
			t.Fatal(err)
		}
		st := newArenaStore(a, va)
		for i := range 2000 {
			n := 1 + i%3000 // some above MaxAlloc: jumbo chunks for nodes and values
			key := fmt.Appendf(nil, "key%06d", i)
			key = append(key, make([]byte, n%1500)...)
			l, _, err := st.newNode(key, make([]byte, n), 1+i%maxHeight)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.key(l); !bytes.Equal(got, key) || st.prefix(l) != keyPrefix(key) {
				t.Fatalf("chunk size %d: link %#x resolves to key %.20q, want %.20q", cs, l, got, key)
			}
			if v := st.value(l); len(v) != n {
				t.Fatalf("chunk size %d: value length %d, want %d", cs, len(v), n)
			}
		}
		va.Release()
		a.Release()
	}
}

// TestArenaIteratorOutlivesClose: with a private pool (Options.Pool nil),
// the node arena closes the pool on its last release; an iterator that
// holds both arenas past Close must still read every value, and the value
// arena must be released before the pool closes (no panic, no chunk left).
func TestArenaIteratorOutlivesClose(t *testing.T) {
	for _, kind := range []string{"arena", "offheap"} {
		m, err := New(kind, Options{ChunkSize: 4 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 500 {
			m.Put(fmt.Appendf(nil, "k%04d", i), bytes.Repeat([]byte{byte(i)}, 1+i%300))
		}
		i := 0
		for k, v := range m.All() {
			if i == 10 {
				m.Close()
			}
			if want := fmt.Sprintf("k%04d", i); string(k) != want || len(v) != 1+i%300 || v[0] != byte(i) {
				t.Fatalf("%s: entry %d = %q (%d B), want %q", kind, i, k, len(v), want)
			}
			i++
		}
		if i != 500 {
			t.Fatalf("%s: iterator yielded %d entries, want 500", kind, i)
		}
		if s := m.(*arenaTable).va.Stats(); s.ChunksLive != 0 {
			t.Fatalf("%s: value arena still holds %d chunks", kind, s.ChunksLive)
		}
	}
}

// TestRandomHeight checks the tower height distribution, from rand and
// from the seeded sequence: heights in [1, maxHeight] and P(h > k) =
// (5/8)^k within sampling error.
func TestRandomHeight(t *testing.T) {
	t.Run("seeded=false", func(t *testing.T) { checkHeights(t, false) })
	t.Run("seeded=true", func(t *testing.T) { checkHeights(t, true) })
}

// TestSeededHeightsRepeat: with SeedEnv's sequence, two lists made in the
// same order draw the same heights, and two lists of one process differ.
func TestSeededHeightsRepeat(t *testing.T) {
	defer func(seed uint64, on bool, n uint64) { towerSeed, towerSeeded = seed, on; lists.Store(n) }(towerSeed, towerSeeded, lists.Load())
	towerSeed, towerSeeded = 1, true
	draw := func() []int {
		var a, b skiplist[uint64, arena.Handle, arenaStore]
		a.init(arenaStore{}, 0)
		b.init(arenaStore{}, 0)
		var hs []int
		for range 1000 {
			hs = append(hs, a.randomHeight(), b.randomHeight())
		}
		return hs
	}
	lists.Store(0)
	first := draw()
	lists.Store(0)
	second := draw()
	if !slices.Equal(first, second) {
		t.Fatal("the same seed and order gave other heights")
	}
	same := true
	for i := 0; i < len(first); i += 2 {
		same = same && first[i] == first[i+1]
	}
	if same {
		t.Fatal("two lists of one process drew the same heights")
	}
}

func checkHeights(t *testing.T, seeded bool) {
	defer func(seed uint64, on bool) { towerSeed, towerSeeded = seed, on }(towerSeed, towerSeeded)
	towerSeed, towerSeeded = 7, seeded
	var sl skiplist[uint64, arena.Handle, arenaStore]
	sl.init(arenaStore{}, 0)
	const draws = 400_000
	var above [maxHeight + 1]int
	for range draws {
		h := sl.randomHeight()
		if h < 1 || h > maxHeight {
			t.Fatalf("height %d outside [1, %d]", h, maxHeight)
		}
		for k := range h {
			above[k]++
		}
	}
	p := 1.0
	for k := 0; k <= 8; k++ {
		got := float64(above[k]) / draws
		// Four standard deviations of a binomial share.
		if tol := 4 * math.Sqrt(p*(1-p)/draws); math.Abs(got-p) > tol+1e-9 {
			t.Errorf("P(h > %d) = %.4f, want %.4f ± %.4f", k, got, p, tol)
		}
		p *= 5.0 / 8
	}
}

// TestPrefixTies puts keys shorter than the 4-byte link prefix, keys that
// share it, and keys that differ only past it or only in length, in an
// order that links each next to its ties, on every kind.
func TestPrefixTies(t *testing.T) {
	keys := []string{"abcd", "abc", "ab", "a", "\x00", "\x00\x00", "\x00\x00\x00\x00", "\x00\x00\x00\x00\x00",
		"abcde", "abcd\x00", "abcdz", "abcd\xff\xff", "abc\x00", "abc\x00\x01", "\xff\xff\xff\xff", "\xff\xff\xff\xff\x00", "\xff"}
	for _, kind := range []string{"heap", "arena", "offheap", "btree"} {
		m := newKind(t, kind)
		md := model{}
		for round := range 2 { // the second round overwrites every key
			for i, k := range keys {
				v := fmt.Sprintf("%s-%d-%d", kind, round, i)
				if err := m.Put([]byte(k), []byte(v)); err != nil {
					t.Fatalf("%s: Put(%q): %v", kind, k, err)
				}
				md[k] = v
			}
		}
		md.check(t, m)
		for k, v := range md {
			if got, ok := m.Get([]byte(k)); !ok || string(got) != v {
				t.Fatalf("%s: Get(%q) = %q, %v; want %q", kind, k, got, ok, v)
			}
		}
		for _, k := range []string{"abcd\x00\x00", "abcc", "\x00\x00\x00", "abd"} {
			if _, ok := m.Get([]byte(k)); ok {
				t.Fatalf("%s: Get(%q) found a key never put", kind, k)
			}
		}
	}
}
