package peers

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dgraph-io/badger/v4/skl"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/writegc/writegc/gcmetrics/gcbench"
	"github.com/writegc/writegc/internal/workload"
)

var (
	peerValues = []int64{10, 100, 1 << 10, 10 << 10}
	peerCounts = []int64{100_000, 1_000_000, 5_000_000, 10_000_000}
)

const memBudget = 2 << 30

// putter is one peer's Put plus what starting over costs.
type putter interface {
	put(key, value []byte) error
	reset()
	close()
}

// badgerSkl is Badger's skiplist. Its arena is one fixed buffer that cannot
// grow, so it is sized to fit the keys (Badger panics when it is full).
type badgerSkl struct {
	s    *skl.Skiplist
	size int64
	ts   []byte
}

func newBadgerSkl(keys, value int64) *badgerSkl {
	b := &badgerSkl{size: keys*(workload.KeySize+8+value+int64(skl.MaxNodeSize)) + 1<<20}
	b.s = skl.NewSkiplist(b.size)
	return b
}

func (b *badgerSkl) put(key, value []byte) error {
	// Badger keys carry an 8-byte version suffix; the copy is part of its cost
	// of use, as it is for a Badger memtable.
	b.ts = y.KeyWithTs(append(b.ts[:0], key...), 1)
	b.s.Put(b.ts, y.ValueStruct{Value: value})
	return nil
}
func (b *badgerSkl) reset() { b.s.DecrRef(); b.s = skl.NewSkiplist(b.size) }
func (b *badgerSkl) close() { b.s.DecrRef() }

// pebbleDB is a Pebble DB on vfs.NewMem with the WAL off: Set goes to
// Pebble's arenaskl memtable, flushes included.
type pebbleDB struct{ db *pebble.DB }

func openPebble() *pebbleDB {
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), DisableWAL: true, Logger: quiet{}})
	if err != nil {
		panic(err)
	}
	return &pebbleDB{db: db}
}

func (p *pebbleDB) put(key, value []byte) error { return p.db.Set(key, value, pebble.NoSync) }
func (p *pebbleDB) reset()                      { p.db.Close(); *p = *openPebble() }
func (p *pebbleDB) close()                      { p.db.Close() }

// quiet discards Pebble's informational logging.
type quiet struct{}

func (quiet) Infof(string, ...any)  {}
func (quiet) Errorf(string, ...any) {}
func (quiet) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// BenchmarkPut is the main suite's BenchmarkPut on the peers: one op is one
// Put of a distinct random 16-byte key; the structure starts over every
// `keys` Puts (timer stopped).
func BenchmarkPut(b *testing.B) {
	for _, keys := range peerCounts {
		for _, value := range peerValues {
			for _, kind := range []string{"badger-skl", "pebble"} {
				name := fmt.Sprintf("kind=%s/value=%s/keys=%s", kind, workload.FormatSize(value), workload.FormatCount(keys))
				b.Run(name, func(b *testing.B) {
					if testing.Short() && keys > 100_000 {
						b.Skip("large case: skipped under -short")
					}
					if keys*(workload.KeySize+value) > memBudget {
						b.Skip("over the memory budget")
					}
					var p putter
					if kind == "pebble" {
						p = openPebble()
					} else {
						p = newBadgerSkl(keys, value)
					}
					defer p.close()
					ks := workload.NewKeys(int(keys), workload.KeySize, 1)
					v := workload.Value(int(value))
					b.SetBytes(workload.KeySize + value)
					m := gcbench.Start(b)
					b.ResetTimer()
					for i := range b.N {
						j := i % int(keys)
						if j == 0 && i > 0 {
							b.StopTimer()
							p.reset()
							b.StartTimer()
						}
						if err := p.put(ks.Key(j), v); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					m.Stop()
				})
			}
		}
	}
}
