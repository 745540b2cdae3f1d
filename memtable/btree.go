package memtable

import (
	"bytes"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/writegc/writegc/internal/slowdown"
)

func init() { register(KindBTree, newBTree) }

// btreeEntryOverhead is what Size charges per entry beyond key and value:
// the entry's two slice headers (48 B) plus its share of a B-tree node.
const btreeEntryOverhead = 64

type btreeEntry struct{ key, value []byte }

func btreeLess(a, b btreeEntry) bool { return bytes.Compare(a.key, b.key) < 0 }

// bTree is the baseline most Go code uses today: github.com/google/btree
// under a sync.RWMutex, every entry one heap allocation holding key and value.
type bTree struct {
	mu     sync.RWMutex
	t      *btree.BTreeG[btreeEntry]
	size   atomic.Int64
	closed atomic.Bool
}

func newBTree(Options) (Memtable, error) {
	return &bTree{t: btree.NewG(32, btreeLess)}, nil
}

func (m *bTree) Put(key, value []byte) error {
	slowdown.Inject(slowdown.MemtablePut)
	if err := CheckEntry(key, value); err != nil {
		return err
	}
	buf := make([]byte, len(key)+len(value))
	copy(buf, key)
	copy(buf[len(key):], value)
	e := btreeEntry{key: buf[:len(key):len(key)], value: buf[len(key):]}
	m.mu.Lock()
	if m.closed.Load() {
		m.mu.Unlock()
		return ErrClosed
	}
	old, replaced := m.t.ReplaceOrInsert(e)
	m.mu.Unlock()
	if replaced {
		m.size.Add(int64(len(value) - len(old.value)))
	} else {
		m.size.Add(int64(len(key) + len(value) + btreeEntryOverhead))
	}
	return nil
}

func (m *bTree) Get(key []byte) ([]byte, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed.Load() {
		return nil, false
	}
	e, ok := m.t.Get(btreeEntry{key: key})
	return e.value, ok
}

// All iterates a copy-on-write clone taken under the lock, so writers are
// not blocked during the scan and the scan sees one consistent state.
func (m *bTree) All() iter.Seq2[[]byte, []byte] { return m.From(nil) }

// From is All from the first key at or above start (Seeker), on the same
// kind of clone.
func (m *bTree) From(start []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		m.mu.Lock()
		if m.closed.Load() {
			m.mu.Unlock()
			return
		}
		c := m.t.Clone()
		m.mu.Unlock()
		c.AscendGreaterOrEqual(btreeEntry{key: start}, func(e btreeEntry) bool { return yield(e.key, e.value) })
	}
}

func (m *bTree) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.t.Len()
}

func (m *bTree) Size() int64 { return m.size.Load() }

func (m *bTree) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed.Swap(true) {
		m.t = btree.NewG(2, btreeLess)
	}
	return nil
}
