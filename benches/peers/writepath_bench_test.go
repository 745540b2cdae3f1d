package peers

import (
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/writegc/writegc/internal/latency"
	"github.com/writegc/writegc/internal/putbench"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/writepath"
)

// BenchmarkPebbleWrite is the anchor for writepath's server side: Pebble's
// write path, one Batch of one Set committed per Put with the WAL on a real
// file and pebble.NoSync, from one goroutine, random 16-byte keys
// (compare with writepath's BenchmarkServerPut below and
// benches' BenchmarkWrite/path=direct/transport=inproc).
func BenchmarkPebbleWrite(b *testing.B) {
	for _, v := range peerValues {
		b.Run("value="+workload.FormatSize(v), func(b *testing.B) {
			db, err := pebble.Open(b.TempDir(), &pebble.Options{Logger: quietLogger{}})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			value := workload.Value(int(v))
			run(b, int(v), func(key []byte) error {
				batch := db.NewBatch()
				if err := batch.Set(key, value, nil); err != nil {
					return err
				}
				err := batch.Commit(pebble.NoSync)
				batch.Close()
				return err
			})
		})
	}
}

// BenchmarkServerPut is writepath's server side on the same terms: Server.Put
// (no transport) into an arena memtable with the WAL on a real file, sync
// mode none (acknowledged once handed to the WAL writer, as NoSync).
func BenchmarkServerPut(b *testing.B) {
	for _, v := range peerValues {
		b.Run(fmt.Sprintf("value=%s", workload.FormatSize(v)), func(b *testing.B) {
			s, err := writepath.NewServer(writepath.ServerOptions{Kind: "arena",
				WAL: writepath.WALOptions{Dir: b.TempDir(), Sync: writepath.SyncNone}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			value := workload.Value(int(v))
			run(b, int(v), func(key []byte) error { return s.Put(key, value) })
		})
	}
}

// run times put on putbench's loop, one latency per Put.
func run(b *testing.B, valueSize int, put func(key []byte) error) {
	h := latency.NewHistogram()
	m := putbench.Loop(b, valueSize, func(key []byte, t0 time.Time) error {
		if err := put(key); err != nil {
			return err
		}
		h.RecordValue(int64(time.Since(t0)))
		return nil
	})
	b.StopTimer()
	m.Stop()
	putbench.Report(b, h)
}

// quietLogger keeps Pebble's "Found 0 WALs" lines out of benchmark output.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Errorf(string, ...any)          {}
func (quietLogger) Fatalf(format string, a ...any) { panic(fmt.Sprintf(format, a...)) }
