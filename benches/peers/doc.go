// Package peers runs writegc's workloads on the engines Go users already
// run, Badger's skl (a lock-free skiplist in one fixed arena) and Pebble (a
// full LSM on an in-memory filesystem), so one benchmark run compares
// writegc's memtables and write path with them. It is a separate module so
// the main module does not depend on either engine.
//
// Names follow the main suite (BenchmarkPut/kind=badger-skl/value=100B/keys=1M),
// so `benchstat -col /kind` can put peers and writegc side by side when both
// outputs are concatenated. BenchmarkIngest (engine=pebble|writegc-buffered,
// wal=off|file) compares Pebble's DB.Set with writegc's buffered in-process
// path; ratio.sh runs it interleaved, count 10, and benchstats it by
// /engine.
//
// The module also holds cmd/gcstress-peers, gcstress's command with the
// engines of package engines registered (pebble, pebble-wal, badger,
// ristretto), so gcstress's sustained load, memory limits and health
// classification cover them beside writegc's kinds. README.md says what
// each engine is, its options, and how each differs from production:
// compaction and flushes on a MemFS or in memory with no disk I/O and no
// flush throttling, idle block caches, no fsync, and ristretto dropping and
// evicting writes as a cache does.
package peers
