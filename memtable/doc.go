// Package memtable holds writegc's in-memory sorted maps (HBase: memstore),
// behind one interface and one constructor, New(kind, Options).
//
// Kinds:
//   - "heap": a lock-free skiplist whose nodes, towers, keys, value boxes and
//     values are separate Go allocations linked by pointers — the layout of
//     HBase's ConcurrentSkipListMap of KeyValues before MSLAB. Every live
//     entry is five objects the collector must find and mark.
//   - "arena": the same skiplist algorithm over on-heap arena chunks (MSLAB):
//     each node (an arenaNode: a record handle and its tower of atomic
//     links, viewed as a struct over arena memory) in one arena, each
//     key-and-value record in a second arena of the same pool, nodes linked
//     by arena.Compact addresses. A search walks nodes only, so they are
//     packed densely (arenatable.go says why). Chunks are noscan []byte: they
//     count toward the heap goal but are never scanned.
//   - "offheap": "arena" over chunks mmap'd outside the Go heap: neither
//     scanned nor counted toward the heap goal or GOMEMLIMIT.
//   - "btree": github.com/google/btree under a sync.RWMutex, one allocation
//     per entry; the baseline most Go code uses today.
//
// The kinds are named by the constants KindHeap, KindArena, KindOffHeap and
// KindBTree. Register adds a kind of the user's (registry.go): New, Kinds,
// the writepath server and gcstress then take it like writegc's own. The
// registry is safe for concurrent use; a kind registered twice, or named
// outside ValidKindName's rule ([a-z0-9][a-z0-9._-]*), panics. CheckEntry
// is the one check of key and value sizes, shared with the writepath server.
//
// One algorithm: heap, arena and offheap share skiplist.go, generic over a
// nodeStore (heap.go, arenatable.go), so their benchmarks differ only in
// memory layout. BenchmarkSearch in this package measures the generic search
// against a hand-specialised copy for the arena layout (see results/memtable
// for the figure). Values of 2 KiB or more take putLarge's path in the same
// algorithm: the record is made before the search and the value copied into
// it in pieces between the search's loads, so the copy streams while the
// search waits on cache misses; the node then points at that record, or an
// existing key's value is swapped to it, so the value is still copied once.
//
// Invariants shared by every kind:
//   - Put copies key and value; the caller may reuse its buffers at once.
//   - A later Put of the same key wins; readers see the old or the new value
//     whole, never a mix (values are swapped by one atomic store of a
//     reference).
//   - All yields each key once, in ascending bytes.Compare order, with its
//     latest value when the iterator passes it; it is safe while writers
//     write (keys inserted concurrently may or may not be seen). An iterator
//     running when Close is called keeps the arena chunks alive until it
//     returns.
//   - Keys are 1 B to 64 KiB and values 0 B to 16 MiB; anything else is an
//     error (ErrKeySize, ErrValueSize), never a panic.
//   - Close may run concurrently with every other method. Once Close has
//     started, Put returns ErrClosed, Get finds nothing and All yields
//     nothing; none of them crashes. The arena kinds count the Puts and Gets
//     in flight (guard.go: an atomic add on a mostly private, striped
//     counter, no lock) and Close waits for them before it releases the
//     chunks, so no operation touches released memory. Slices returned by
//     Get are valid until Close; one returned by a Get that races with Close
//     must not be read after Close returns.
//   - Size charges payload plus overhead: for the arena kinds the bytes
//     allocated (node and tower, the key-and-value record with its header,
//     and the records of overwrites, which copy the key too); for heap and
//     btree the object sizes before malloc size-class rounding. A Put that
//     fails after it allocated (ErrFull) leaves what it allocated charged,
//     as is a node abandoned to a concurrent insert of the same key.
//   - The skiplist only grows: an overwritten value's old bytes stay in the
//     arena until the memtable is closed, as in MSLAB.
package memtable
