package peers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/writegc/writegc/gcmetrics/gcbench"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/writepath"
)

// Ingest sizes: one op of BenchmarkIngest writes ingestKeys keys of
// ingestValue bytes (shortIngestKeys under -short).
const (
	ingestKeys      int64 = 1_000_000
	shortIngestKeys int64 = 20_000
	ingestValue     int   = 100
	// ingestMemtable is both engines' flush threshold, so each flushes
	// about as often (1M x 116 B is under two memtables).
	ingestMemtable int64 = 64 << 20
)

// ingestWAL settings, as sub-benchmark values.
const (
	walOff  = "off"  // no WAL: Pebble DisableWAL on a MemFS; writegc without a WAL
	walFile = "file" // WAL on a file in a temporary directory, no fsync per write
)

// BenchmarkIngest compares Pebble's DB.Set with writegc's buffered
// in-process write path in one process, one writer goroutine, random
// 16-byte keys: each op ingests 1M keys x 100 B (20K under -short) into a
// fresh engine, and MB/s is key+value bytes per second. wal=off: Pebble on
// a MemFS with the WAL disabled, writegc's server without a WAL; wal=file:
// both log to a file in a temporary directory with no fsync per write
// (Pebble's NoSync, writegc's SyncNone: SyncBatch would fsync once per
// group, which Pebble's NoSync never does). Pebble's flushes write sstables
// (to the MemFS, or the directory); writegc's flush to its discard sink,
// which still iterates and encodes every entry. Opening and closing the
// engines is outside the timer; writegc's final Flush (every buffered Put
// acknowledged by the server) is inside it.
//
//	go test -run '^$' -bench Ingest -count 10 | benchstat -col /engine -
func BenchmarkIngest(b *testing.B) {
	keys := ingestKeys
	if testing.Short() {
		keys = shortIngestKeys
	}
	for _, wal := range []string{walOff, walFile} {
		b.Run(fmt.Sprintf("engine=pebble/wal=%s", wal), func(b *testing.B) {
			benchIngest(b, keys, func() (ingester, error) { return openPebbleIngest(b.TempDir(), wal) })
		})
		b.Run(fmt.Sprintf("engine=writegc-buffered/wal=%s", wal), func(b *testing.B) {
			benchIngest(b, keys, func() (ingester, error) { return openWritegcIngest(b.TempDir(), wal) })
		})
	}
}

// ingester is one engine under BenchmarkIngest: put every key, then
// finish (wait for what put accepted), then close (untimed).
type ingester struct {
	put    func(key, value []byte) error
	finish func() error
	close  func() error
}

func benchIngest(b *testing.B, keys int64, open func() (ingester, error)) {
	key := make([]byte, workload.KeySize)
	value := workload.Value(ingestValue)
	b.SetBytes(keys * int64(workload.KeySize+ingestValue))
	b.ReportAllocs()
	m := gcbench.Start(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		e, err := open()
		if err != nil {
			b.Fatal(err)
		}
		seed := rand.Uint64()
		b.StartTimer()
		for i := range keys {
			workload.KeyAt(key, seed, uint64(i))
			if err := e.put(key, value); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.finish(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := e.close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	m.Stop()
}

// openPebbleIngest opens Pebble: MemFS and no WAL (walOff), or dir with the
// WAL on (walFile); each put is DB.Set with NoSync.
func openPebbleIngest(dir, wal string) (ingester, error) {
	opts := &pebble.Options{MemTableSize: uint64(ingestMemtable), Logger: quietLogger{}}
	if wal == walOff {
		opts.FS, opts.DisableWAL, dir = vfs.NewMem(), true, ""
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return ingester{}, err
	}
	return ingester{
		put:    func(k, v []byte) error { return db.Set(k, v, pebble.NoSync) },
		finish: func() error { return nil }, // Set returned once applied
		close:  db.Close,
	}, nil
}

// openWritegcIngest opens writegc's server (arena memtable, one region,
// discard flush sink) with no WAL (walOff) or a WAL in dir with SyncNone
// (walFile), and a buffered client over the in-process transport.
func openWritegcIngest(dir, wal string) (ingester, error) {
	so := writepath.ServerOptions{Kind: "arena", FlushThreshold: ingestMemtable}
	if wal == walFile {
		so.WAL = writepath.WALOptions{Dir: dir, Sync: writepath.SyncNone}
	}
	s, err := writepath.NewServer(so)
	if err != nil {
		return ingester{}, err
	}
	t, closeT, err := writepath.Connect("inproc", s)
	if err != nil {
		s.Close()
		return ingester{}, err
	}
	c, err := writepath.NewClient(writepath.PathBuffered, t, writepath.ClientOptions{})
	if err != nil {
		closeT()
		s.Close()
		return ingester{}, err
	}
	return ingester{
		put:    c.Put,
		finish: c.Flush,
		close: func() error {
			err := c.Close()
			if e := closeT(); err == nil {
				err = e
			}
			if e := s.Close(); err == nil {
				err = e
			}
			return err
		},
	}, nil
}
