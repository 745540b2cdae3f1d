// A user's own store under gcstress, written from writegc's README.
package main

import (
	"context"
	"os"
	"sync"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/cli"
)

type logStore struct {
	mu   sync.Mutex
	recs [][]byte
}

func (s *logStore) Put(key, value []byte) error {
	rec := make([]byte, 0, len(key)+len(value))
	rec = append(append(rec, key...), value...)
	s.mu.Lock()
	s.recs = append(s.recs, rec)
	if len(s.recs) >= 1<<16 { // "flush" every 64K records
		s.recs = s.recs[:0:0]
	}
	s.mu.Unlock()
	return nil
}

func (s *logStore) Close() error { return nil }

func main() {
	gcstress.RegisterEngine("mystore", func(gcstress.Scenario) (gcstress.Engine, error) { return &logStore{}, nil })
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
