package writepath

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/writegc/writegc/memtable"
)

func runtimeGosched() { runtime.Gosched(); time.Sleep(time.Millisecond) }

// putFault is a test memtable kind that wraps another and asks a function,
// set at any time, whether a Put fails: the way tests make a batch fail
// part-way (or block a handler) without a hook in the server's Put path.
type putFault struct {
	f atomic.Pointer[func(key []byte) error]
}

// set makes every later Put of the kind call f first; nil: no fault.
func (p *putFault) set(f func(key []byte) error) { p.f.Store(&f) }

var faultKinds atomic.Int64

// faultKindPrefix starts the name of every kind faultKind registers, so
// tests that run every registered kind can leave them out.
const faultKindPrefix = "test-fault-"

// faultKind registers a fresh memtable kind that wraps inner; its Puts call
// the returned putFault's function first and fail with its error.
// Registration cannot be undone: each call adds one kind to this test
// binary only, and the test's cleanup turns its faults off.
func faultKind(t testing.TB, inner string) (string, *putFault) {
	t.Helper()
	kind := fmt.Sprintf("%s%d", faultKindPrefix, faultKinds.Add(1))
	p := &putFault{}
	t.Cleanup(func() { p.set(nil) })
	memtable.Register(kind, func(o memtable.Options) (memtable.Memtable, error) {
		m, err := memtable.New(inner, o)
		if err != nil {
			return nil, err
		}
		return faultyMemtable{m, p}, nil
	})
	return kind, p
}

type faultyMemtable struct {
	memtable.Memtable
	p *putFault
}

func (m faultyMemtable) Put(key, value []byte) error {
	if f := m.p.f.Load(); f != nil && *f != nil {
		if err := (*f)(key); err != nil {
			return err
		}
	}
	return m.Memtable.Put(key, value)
}
