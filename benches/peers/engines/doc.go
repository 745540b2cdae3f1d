// Package engines puts the engines Go users already run under gcstress:
// Pebble (kinds pebble and pebble-wal), Badger (badger), and the caches
// ristretto (ristretto), VictoriaMetrics' fastcache (fastcache), otter
// (otter) and a hand-rolled sharded map[string][]byte (shardmap), each a
// gcstress.Engine registered with Register beside writegc's own kinds. cmd/gcstress-peers is gcstress's command with these
// engines registered.
//
// Invariants:
//   - An engine serves one gcstress scenario in one child process. Put is
//     safe for concurrent use; it never keeps the key or value slices past
//     the call (Pebble and Badger copy them into their memtables, ristretto's
//     engine copies them itself).
//   - Close is safe while Puts are in flight: it waits for the Puts that
//     already entered the engine, then closes it; a later Put returns
//     ErrClosed. Close runs the underlying close once; later calls return
//     nil. Every temporary directory an engine made is removed by Close.
//   - Stats is safe concurrently with Put and after Close (it then returns
//     the figures taken at Close).
//   - Options travel from the parent process to the scenarios' child
//     processes in environment variables (Options.Export, OptionsFromEnv):
//     gcstress re-executes the binary with the parent's environment, and the
//     child's engines are built from it.
//
// Where each engine keeps its data (what the Go collector sees), in this
// build (Pebble v2.1.7, Badger v4.9.6, ristretto v2.4.2, fastcache
// v1.13.2, otter v2.4.0):
//   - Pebble's memtable arena and block cache come from its internal/manual
//     package. With cgo enabled (the default here: CGO_ENABLED=1 and a C
//     compiler), manual.New is C.calloc, memory the Go collector never
//     scans or counts; under the race detector each process picks Go memory
//     at random half the time. With CGO_ENABLED=0 (manual_nocgo.go) it is
//     make([]byte, n): a large pointer-free Go object, counted in the heap
//     and GOMEMLIMIT but not scanned. Build the other variant with
//     `CGO_ENABLED=0 go build ./cmd/gcstress-peers`; the pebble engine's
//     notes record which one ran (manual_cgo 1 or 0). On a MemFS (kind
//     pebble) the flushed sstables are Go byte slices too.
//   - Badger's memtable is its skl skiplist in one arena allocated with
//     make([]byte, n) (skl.newArena): Go memory, pointer-free, one object
//     per memtable. z.Calloc (C memory only with the jemalloc build tag,
//     Go memory otherwise) serves table building and decompression. In
//     InMemory mode the tables stay in Go memory.
//   - ristretto holds every entry as Go objects: a map entry holding the
//     value slice, plus the copied key and value.
//   - fastcache keeps key and value in 64 KiB chunks it mmaps itself
//     (anonymous, outside the Go heap: its Stats report them as
//     OffHeapBytes), indexed by a map[uint64]uint64 per bucket: no Go
//     pointer per entry.
//   - otter holds every entry as Go objects: a node with the key string
//     and the value slice in its concurrent hash table, plus its policy's
//     bookkeeping.
//   - shardmap holds every entry as Go objects: the key string and value
//     slice in a shard's map, and the key's string header in the shard's
//     FIFO.
package engines
