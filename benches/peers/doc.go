// Package peers runs writegc's workloads on the engines Go users already
// run, Badger's skl (a lock-free skiplist in one fixed arena) and Pebble (a
// full LSM on an in-memory filesystem), so one benchmark run compares
// writegc's memtables and write path with them. It is a separate module so
// the main module does not depend on either engine.
//
// Names follow the main suite (BenchmarkPut/kind=badger-skl/value=100B/keys=1M),
// so `benchstat -col /kind` can put peers and writegc side by side when both
// outputs are concatenated.
package peers
