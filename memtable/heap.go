package memtable

import (
	"iter"
	"sync/atomic"
	"unsafe"
)

func init() { register(KindHeap, newHeap) }

// heapNode is the "before MSLAB" layout: the node, its tower, its key, its
// value box and its value bytes are five separate Go allocations, all
// reachable through pointers the collector must trace.
type heapNode struct {
	val  atomic.Pointer[[]byte]
	key  []byte
	next []atomic.Pointer[heapNode]
}

// heapStore is the nodeStore of the heap layout.
type heapStore struct{}

const heapNodeBytes = int64(unsafe.Sizeof(heapNode{}))

func boxValue(value []byte) *[]byte {
	v := make([]byte, len(value))
	copy(v, value)
	return &v
}

// newNode makes the five objects of a new entry in one function, so a
// profile attributes every allocation of an insert to one site.
func (heapStore) newNode(key, value []byte, height int) (*heapNode, int64, error) {
	n := &heapNode{key: append(make([]byte, 0, len(key)), key...), next: make([]atomic.Pointer[heapNode], height)}
	v := make([]byte, len(value))
	copy(v, value)
	box := new([]byte)
	*box = v
	n.val.Store(box)
	return n, heapNodeBytes + int64(8*height+len(key)) + 24 + int64(len(value)), nil
}

// newRecord is the heap layout's record: a value box and its value bytes,
// two of the five objects of an entry (the key stays with the node, made by
// newNodeAt). It copies the value itself, as it allocates it (boxValue):
// memory Go does not fill as it allocates it comes zeroed, so leaving the
// copy to putLarge would cost a second pass over it.
func (heapStore) newRecord(_, value []byte) (*[]byte, []byte, int64, error) {
	return boxValue(value), nil, 24 + int64(len(value)), nil
}

// newNodeAt makes the other three objects of an entry, around the value box
// rec.
func (heapStore) newNodeAt(key []byte, rec *[]byte, height int) (*heapNode, int64, error) {
	n := &heapNode{key: append(make([]byte, 0, len(key)), key...), next: make([]atomic.Pointer[heapNode], height)}
	n.val.Store(rec)
	return n, heapNodeBytes + int64(8*height+len(key)), nil
}

func (heapStore) next(n *heapNode, level int) *heapNode { return n.next[level].Load() }
func (heapStore) setNext(n *heapNode, level int, to *heapNode) {
	n.next[level].Store(to)
}
func (heapStore) casNext(n *heapNode, level int, old, new *heapNode) bool {
	return n.next[level].CompareAndSwap(old, new)
}
func (heapStore) prefix(n *heapNode) uint32 { return keyPrefix(n.key) }
func (heapStore) key(n *heapNode) []byte    { return n.key }
func (heapStore) value(n *heapNode) []byte  { return *n.val.Load() }
func (heapStore) entry(n *heapNode) ([]byte, []byte) {
	return n.key, *n.val.Load()
}
func (heapStore) setValue(n *heapNode, value []byte) (int64, error) {
	n.val.Store(boxValue(value))
	return 24 + int64(len(value)), nil
}
func (heapStore) setRecord(n *heapNode, rec *[]byte) { n.val.Store(rec) }

// heapTable is the "heap" kind: the skiplist over heap nodes.
type heapTable struct {
	sl     skiplist[*heapNode, *[]byte, heapStore]
	closed atomic.Bool
}

func newHeap(Options) (Memtable, error) {
	t := &heapTable{}
	head := &heapNode{next: make([]atomic.Pointer[heapNode], maxHeight)}
	head.val.Store(new([]byte))
	t.sl.init(heapStore{}, head)
	return t, nil
}

func (t *heapTable) Put(key, value []byte) error {
	if err := CheckEntry(key, value); err != nil {
		return err
	}
	if t.closed.Load() {
		return ErrClosed
	}
	return t.sl.put(key, value)
}

func (t *heapTable) Get(key []byte) ([]byte, bool) {
	if t.closed.Load() {
		return nil, false
	}
	return t.sl.get(key)
}

func (t *heapTable) All() iter.Seq2[[]byte, []byte] { return t.From(nil) }

// From is All from the first key at or above start (Seeker).
func (t *heapTable) From(start []byte) iter.Seq2[[]byte, []byte] {
	if t.closed.Load() {
		return func(func([]byte, []byte) bool) {}
	}
	return t.sl.from(start)
}

func (t *heapTable) Len() int     { return int(t.sl.n.Load()) }
func (t *heapTable) Size() int64  { return t.sl.size.Load() }
func (t *heapTable) Close() error { t.closed.Store(true); return nil }
