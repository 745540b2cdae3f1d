// Package memtable holds writegc's in-memory sorted maps (HBase: memstore),
// behind one interface and one constructor, New(kind, Options).
//
// Kinds:
//   - "btree": github.com/google/btree under a sync.RWMutex; the baseline
//     most Go code uses today.
//
// Invariants shared by every kind:
//   - Put copies key and value; the caller may reuse its buffers at once.
//   - A later Put of the same key wins; readers see the old or the new
//     value, never a mix of the two.
//   - All yields each key once, in ascending bytes.Compare order, and is safe
//     while writers write.
//   - Keys are 1 B to 64 KiB and values 0 B to 16 MiB; anything else is an
//     error (ErrKeySize, ErrValueSize), never a panic.
//   - After Close, Put returns ErrClosed and Get finds nothing; neither
//     crashes.
package memtable
