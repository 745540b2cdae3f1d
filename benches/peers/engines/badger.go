package engines

import (
	"fmt"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/internal/workload"
)

// Badger's memtable bounds here: below 1 MiB a batch (15% of a memtable,
// Badger's maxBatchSize) cannot hold a 10 KB entry with room to spare; at
// 4 GiB and above Badger's uint32 arena offsets overflow.
const (
	MinBadgerMemtable int64 = 1 << 20
	MaxBadgerMemtable int64 = 4<<30 - 1
	// badgerValueThreshold is Badger's default (and largest) ValueThreshold.
	badgerValueThreshold int64 = 1 << 20
)

// Badger is a badger.DB in InMemory mode as a gcstress engine: memtable
// size = the scenario's memstore, compactions as Badger's defaults. Each
// Put is one db.Update transaction with one Set: the way a Put API maps
// onto Badger, acknowledged once the entry is in the memtable, like the
// other engines' Put. (A WriteBatch would amortize the commit over many
// Puts and acknowledge before the entry is applied: a different contract,
// and not comparable with one Set per Put.) Safe for concurrent use; Close
// may race with Puts (see the package doc). One per scenario.
type Badger struct {
	g    guard
	db   *badger.DB
	last atomic.Pointer[gcstress.EngineStats]
}

// NewBadger opens an in-memory Badger for scenario s (ErrMemstore when
// s.Memstore is outside [MinBadgerMemtable, MaxBadgerMemtable]).
func NewBadger(s gcstress.Scenario, o Options) (*Badger, error) {
	if s.Memstore < MinBadgerMemtable || s.Memstore > MaxBadgerMemtable {
		return nil, fmt.Errorf("%w: badger: -memstore %s not in [%s, 4GiB)", ErrMemstore,
			workload.FormatSize(s.Memstore), workload.FormatSize(MinBadgerMemtable))
	}
	// Badger refuses a ValueThreshold above maxBatchSize (15% of the
	// memtable); in InMemory mode every value stays in the LSM anyway.
	vt := min(badgerValueThreshold, s.Memstore*15/100)
	opts := badger.DefaultOptions("").WithInMemory(true).WithMemTableSize(s.Memstore).
		WithNumMemtables(o.BadgerMemtables).WithValueThreshold(vt).WithLogger(nil)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, err
	}
	return &Badger{db: db}, nil
}

// Put is one transaction with one Set; Badger copies key and value into
// its memtable before Update returns.
func (e *Badger) Put(key, value []byte) error {
	if !e.g.enter() {
		return ErrClosed
	}
	defer e.g.leave()
	return e.db.Update(func(txn *badger.Txn) error { return txn.Set(key, value) })
}

// Stats: Badger exposes no flush counter; FlushedBytes is the bytes in its
// LSM tables now (what flushes and compactions wrote, less what
// compactions dropped), Flushes the tables on level 0 plus the levels'
// table counts as a stand-in. MemtableBytes stays 0: Badger does not
// expose its memtables' size. After Close, the figures taken at Close.
func (e *Badger) Stats() gcstress.EngineStats {
	return e.g.stats(&e.last, e.stats)
}

func (e *Badger) stats() gcstress.EngineStats {
	var st gcstress.EngineStats
	for _, l := range e.db.Levels() {
		st.FlushedBytes += l.Size
		st.Flushes += int64(l.NumTables)
	}
	return st
}

// Close closes the DB once the Puts inside returned.
func (e *Badger) Close() error {
	return e.g.close(func() error {
		st := e.stats()
		e.last.Store(&st)
		return e.db.Close()
	})
}
