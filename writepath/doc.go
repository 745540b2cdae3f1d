// Package writepath is writegc's write path: a region server with a WAL,
// flushers and backpressure; in-process and loopback-TCP transports; the
// direct, buffered (BufferedMutator), autoflush and async clients; multiget
// sequential or parallel; and HdrHistogram latency recording with PE- and
// YCSB-style printers. It reproduces HBASE-18500 (direct vs autoflush
// latency) and HBASE-3553 (parallel multiget), and gives gcstress its load.
//
// The path of one Put:
//
//	caller
//	  │ Client.Put(key, value)          direct: encode 1-entry Batch, send, wait
//	  │                                 buffered: append to 2 MiB buffer; full/timer/Flush → sender goroutine
//	  │                                 autoflush: append, hand to sender goroutine, wait (HBASE-18500's slow path)
//	  │                                 async: encode, send, return; ack via callback/future (≤ MaxInFlight)
//	  ▼
//	Transport ── inproc: *call → server queue (goroutine handoff) ─────────────┐
//	          └─ tcp: frame [len|type|id|Batch] → writer goroutine → socket     │
//	               → server conn reader → *call → server queue ───────────────┤
//	                                                                           ▼
//	Server handler goroutine (one of Handlers)
//	  │ validate whole batch (malformed / size limits: nothing applied)
//	  │ WAL append ── none: queue, go on · batch: wait for group's write+fsync · always: own write+fsync
//	  ▼
//	entries ≥ SortedApplyMin: stable sort by key (cache-friendly skiplist inserts)
//	for each entry: region = RegionOf(key)   (first 8 key bytes, big-endian, split evenly)
//	  │ wait while region has > MaxPendingFlushes full memtables (backpressure)
//	  │ RLock region; active.Put(key, value); RUnlock
//	  │ active.Size() ≥ FlushThreshold → rotate: active → pending queue, new active
//	  ▼
//	ack ← response (PutOK / Error with applied count) ← handler
//	                      ┆
//	flusher goroutine: pending memtable → sorted segment file (or discard sink),
//	  ≤ FlushBandwidth B/s → drop memtable (wake blocked writers) → delete WAL
//	  files no live memtable or in-flight append still needs
//
// Invariants:
//   - A Put is acknowledged only after it is in a memtable and, with a WAL,
//     durable per the sync mode (none: handed to the WAL writer; batch: its
//     group was written and fsynced; always: written and fsynced alone).
//   - No entry is put into a memtable after a flusher took it: Puts hold
//     the region's read lock, rotation takes its write lock.
//   - A batch is validated whole before anything is logged or applied; a
//     failure while applying returns *BatchError with the applied count
//     (a prefix in insertion order: key order from SortedApplyMin entries,
//     stable, so a later Put of the same key in a batch still wins).
//   - WAL files are deleted only when every entry they hold is in a flushed
//     segment; replay on NewServer restores the rest. WAL damage is never
//     silent: every record and byte replay could not restore is reported
//     (Server.WALReplay). A torn tail (damage that runs to the end of the
//     last log, as a crash or a zero-filled page leaves) is cut off and the
//     open succeeds; damage before it (a bad record followed by a valid
//     one, or any damage in an earlier log, including one cut short at a
//     record boundary) fails the open with ErrWALCorrupt naming the file
//     and byte offset, unless WALOptions.Recovery says otherwise (see
//     WALRecoveryMode). The log format is version 2 (see wal.go); version 1
//     logs fail the open.
//   - One server per WAL directory: NewServer locks it (WALLockName, under
//     flock(2) where the OS has it, and in a process-wide registry
//     everywhere) before it reads anything, and holds the lock until Close;
//     a failed open releases it. A second opener, in this process or
//     another, in any recovery mode, fails with ErrWALLocked naming the
//     holder's pid. Without flock (other OSes) only openers in the same
//     process are refused.
//   - Get sees the active and pending memtables of a key's region (newest
//     first) and copies the value under the region lock; flushed data lives
//     in segment files (ScanSegment).
//   - Errors are sentinels (errors.Is), also across TCP (error codes). The
//     package never calls log.Fatal or panics on bad input; the TCP server
//     logs a broken connection to its slog.Logger, closes it and keeps
//     serving the others.
//   - The TCP server bounds everything a client can make it hold
//     (TCPServerOptions): frame size (checked from the header; payload
//     buffers grow as bytes arrive), Get reply size (summed before the reply
//     is built; over it the Get fails with ErrReplyTooLarge and the
//     connection stays usable, in-process too), connections, unanswered
//     requests per connection, in-flight request and reply bytes server-wide,
//     and read, idle and write deadlines. One peer (remote IP) gets a share:
//     MaxConnsPerPeer slots and MaxPeerInFlightBytes of the payload budget
//     (a quarter of each by default), and a payload over 64 KiB that
//     arrives slower than MinReadRate is cut off, so that slow or hostile
//     senders on a few addresses cannot take every slot or the whole
//     large-frame budget. A failed Accept (EMFILE and the like) is retried
//     with backoff; only a closed listener stops accepting. Each
//     connection's replies are written by its own writer goroutine, so a
//     client that stops reading stalls only itself until WriteTimeout
//     closes it; handlers never wait on a socket.
//
// Choices: one WAL per server (not per region), rolled at 64 MiB; flushers
// are shared by all regions; backpressure is per region; segments are
// fsynced only when a WAL depends on them. Reads are memtable lookups and so
// CPU-bound; ServerOptions.ReadLatency (off by default) is an opt-in model of
// one block read per region Get request, answered on a timer so that waits
// overlap, for reproducing HBASE-3553 on one machine.
//
// The manual (commands, flags, worked examples) is docs/writepath.md in the repository.
package writepath
