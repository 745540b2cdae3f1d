package memtable

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/writegc/writegc/arena"
)

// Limits on what a Memtable accepts (CheckEntry checks them). They match
// HBase's cell limits closely enough for the experiments and keep lengths
// in 32 bits.
const (
	MinKeySize   = 1
	MaxKeySize   = 64 << 10
	MaxValueSize = 16 << 20
)

// Sentinel errors. Callers compare with errors.Is.
var (
	ErrClosed        = errors.New("memtable: closed")
	ErrKeySize       = errors.New("memtable: key size out of range [1 B, 64 KiB]")
	ErrValueSize     = errors.New("memtable: value size out of range [0 B, 16 MiB]")
	ErrUnknownKind   = errors.New("memtable: unknown kind")
	ErrInvalidOption = errors.New("memtable: invalid option")
	// ErrFull: an arena memtable used up its 32 GiB address space.
	ErrFull = errors.New("memtable: arena memtable address space (32 GiB) exhausted")
)

// Memtable is an in-memory sorted map that absorbs writes until it is flushed.
//
// Concurrency: every method is safe for concurrent use, including Put and All
// at the same time, and Close at the same time as any of them: Close waits
// for the Puts and Gets in flight. Lifetime: a Memtable lives until Close;
// once Close has started, Put and Get return ErrClosed / (nil, false) and
// never crash. An iterator that started before Close keeps the memory it
// reads alive until it finishes.
type Memtable interface {
	// Put copies key and value into the memtable. A later Put of the same key
	// wins; concurrent readers see the old or the new value, never a mix.
	Put(key, value []byte) error
	// Get returns the latest value of key. The returned slice must not be
	// modified and is valid until the memtable's last reader lets go (Close
	// plus the end of every open iterator).
	Get(key []byte) ([]byte, bool)
	// All yields every key once, in ascending byte order, with its latest
	// value at the moment the iterator passes it. Safe while writers write:
	// keys inserted concurrently may or may not be seen.
	All() iter.Seq2[[]byte, []byte]
	// Len is the number of distinct keys.
	Len() int
	// Size is the number of bytes charged to the memtable: payload plus
	// per-entry overhead (nodes, headers, alignment). It drives flushes.
	Size() int64
	// Close releases the memtable's memory (arena chunks go back to their
	// pool once the Puts and Gets in flight return and open iterators
	// finish). Close is idempotent and may race with the other methods.
	Close() error
}

// Options configure New. The zero Options works for every kind.
type Options struct {
	// Pool is the chunk pool the arena kinds allocate from. Nil gives each
	// memtable a private pool (ChunkSize, MaxAlloc, and off-heap according to
	// the kind). A shared pool's source must match the kind: an on-heap pool
	// for "arena", an off-heap pool for "offheap".
	Pool *arena.Pool
	// ChunkSize is used when Pool is nil (0: the arena default, 2 MiB).
	ChunkSize int
	// MaxAlloc is the arena kinds' jumbo threshold (see arena.Options):
	// 0 for the default, at most the chunk size, else New fails with
	// ErrInvalidOption.
	MaxAlloc int
}

// New returns an empty memtable of the given kind (KindHeap, KindArena,
// KindOffHeap, KindBTree or a kind added with Register). An unknown kind is
// an error wrapping ErrUnknownKind that lists the known ones.
func New(kind string, opts Options) (Memtable, error) {
	c, ok := lookup(kind)
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownKind, kind, strings.Join(Kinds(), ", "))
	}
	return c(opts)
}

// CheckEntry reports whether a Put of key and value is within the limits
// every Memtable accepts: a key of MinKeySize to MaxKeySize bytes and a value
// of at most MaxValueSize. It returns an error wrapping ErrKeySize or
// ErrValueSize, or nil. Every kind of this package calls it first in Put,
// and the writepath server calls it before it logs or applies an entry, so
// that an entry is refused whole, before any of it is written anywhere; a
// kind added with Register should call it too. It allocates only for the
// error.
func CheckEntry(key, value []byte) error {
	if len(key) < MinKeySize || len(key) > MaxKeySize {
		return fmt.Errorf("%w: %d B", ErrKeySize, len(key))
	}
	if len(value) > MaxValueSize {
		return fmt.Errorf("%w: %d B", ErrValueSize, len(value))
	}
	return nil
}
