// Command mystore puts a write path of your own under gcstress: it
// registers an engine, "mystore", and hands the process to gcstress's
// command, so `mystore -kinds mystore,arena` runs every scenario against
// both, each in its own child process, and reports them side by side.
//
//	go run ./examples/mystore -kinds mystore,arena -values 100 -scenario matrix
//
// The store is deliberately naive: one Go map under one mutex, holding a
// copy of every key and value, so every entry is two heap objects the
// collector must find. Replace it with your own; an engine that also has a
// Stats() gcstress.EngineStats method gets its flushes and backpressure
// into the reports.
package main

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/cli"
)

func main() {
	gcstress.RegisterEngine("mystore", func(gcstress.Scenario) (gcstress.Engine, error) { return newMyStore(), nil })
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// errClosed is returned by Put after Close.
var errClosed = errors.New("mystore: closed")

// myStore is a map under a mutex. Safe for concurrent use; Close may run
// while Puts are in flight, and later Puts fail with errClosed.
type myStore struct {
	mu sync.Mutex
	m  map[string][]byte // nil once closed
}

func newMyStore() *myStore { return &myStore{m: map[string][]byte{}} }

// Put copies key and value: gcstress's writers reuse their buffers.
func (s *myStore) Put(key, value []byte) error {
	v := append([]byte(nil), value...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		return errClosed
	}
	s.m[string(key)] = v
	return nil
}

// Close drops the map.
func (s *myStore) Close() error {
	s.mu.Lock()
	s.m = nil
	s.mu.Unlock()
	return nil
}
