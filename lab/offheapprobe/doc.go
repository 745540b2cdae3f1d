// Package offheapprobe measures, in one process, what filling a fresh arena
// memtable and a fresh offheap memtable costs, round after round, with the
// kernel's view beside each figure: the process's page faults and CPU time
// (getrusage), the system's /proc/vmstat counters (huge page faults and
// fallbacks, compaction stalls, NUMA placement), and the mappings that hold
// the memtable's chunks (/proc/self/smaps: resident and huge-page bytes,
// advice flags, 2 MiB alignment). It is the library behind lab/cmd/offheapprobe,
// written for the offheap 10 KB bimodality (docs/offheap-bimodality.md).
//
// Invariants:
//   - Run measures each kind in every round on a fresh memtable over a fresh
//     private pool that keeps no idle chunks, so every chunk is new memory;
//     the kinds alternate their order from round to round (arena first in
//     even rounds), so drift hits both alike.
//   - Every counter is a delta over one fill (Put of every key), read just
//     before the first Put and just after the last; the close of the
//     memtable (munmap of the off-heap chunks) is timed apart and is in no
//     other counter. /proc/vmstat is system-wide: other processes' faults
//     are in it, the probe's own are not separated.
//   - The parsers (ParseVmstat, ParseSmaps, ParseTHPChoice) check their
//     limits before they allocate and reject malformed input with errors
//     wrapping ErrMalformed or ErrTooLarge; they never panic.
//   - Outside Linux the kernel counters are absent (Record.KernelCounters is
//     false) and only the timings are filled.
//
// The package prints nothing and reads no flags; Run is not safe to call
// concurrently with itself (the counters are process-wide).
package offheapprobe
