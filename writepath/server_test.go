package writepath

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

func newTestServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	s, err := NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func valueFor(i, n int) []byte {
	v := make([]byte, n)
	for j := range v {
		v[j] = byte(i + j)
	}
	return v
}

// TestAckedReadBack: every acknowledged write, through every path and
// transport and memtable kind, can be read back.
func TestAckedReadBack(t *testing.T) {
	for _, kind := range memtable.Kinds() {
		if strings.HasPrefix(kind, faultKindPrefix) {
			continue // another test's fault injector
		}
		for _, tr := range Transports() {
			for _, path := range Paths() {
				t.Run(fmt.Sprintf("kind=%s/transport=%s/path=%s", kind, tr, path), func(t *testing.T) {
					s := newTestServer(t, ServerOptions{Kind: kind, Regions: 4, FlushThreshold: 1 << 30})
					tp, closeT, err := Connect(tr, s)
					if err != nil {
						t.Fatal(err)
					}
					defer closeT()
					c, err := NewClient(path, tp, ClientOptions{BufferSize: 4 << 10})
					if err != nil {
						t.Fatal(err)
					}
					keys := workload.NewKeys(2000, 16, 7)
					var wg sync.WaitGroup
					for w := range 4 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := w; i < keys.Len(); i += 4 {
								if err := c.Put(keys.Key(i), valueFor(i, i%50)); err != nil {
									t.Error(err)
									return
								}
							}
						}()
					}
					wg.Wait()
					if err := c.Close(); err != nil {
						t.Fatal(err)
					}
					for i := range keys.Len() {
						v, ok, err := s.Get(keys.Key(i))
						if err != nil || !ok || !bytes.Equal(v, valueFor(i, i%50)) {
							t.Fatalf("key %d: ok=%v err=%v", i, ok, err)
						}
					}
					if st := s.Stats(); st.Puts != int64(keys.Len()) {
						t.Fatalf("Puts = %d, want %d", st.Puts, keys.Len())
					}
				})
			}
		}
	}
}

func TestFlushSegments(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, ServerOptions{Kind: "btree", Regions: 2, FlushThreshold: 32 << 10, FlushDir: dir, Flushers: 2})
	keys := workload.NewKeys(5000, 16, 1)
	for i := range keys.Len() {
		if err := s.Put(keys.Key(i), valueFor(i, 20)); err != nil {
			t.Fatal(err)
		}
	}
	// Wait until flushers drained the queue.
	for s.Stats().PendingFlushes > 0 {
		runtimeGosched()
	}
	st := s.Stats()
	if st.Flushes == 0 {
		t.Fatal("no flush")
	}
	seen := map[string]bool{}
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	if int64(len(segs)) != st.Flushes {
		t.Fatalf("%d segments, %d flushes", len(segs), st.Flushes)
	}
	for _, p := range segs {
		if _, err := ScanSegment(p, func(k, v []byte) error { seen[string(k)] = true; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for i := range keys.Len() {
		_, inMem, _ := s.Get(keys.Key(i))
		if !inMem && !seen[string(keys.Key(i))] {
			t.Fatalf("key %d neither in memtable nor in a segment", i)
		}
	}
	// A damaged segment is detected.
	data, _ := os.ReadFile(segs[0])
	data[10] ^= 0xff
	bad := filepath.Join(t.TempDir(), "bad.seg")
	os.WriteFile(bad, data, 0o644)
	if _, err := ScanSegment(bad, func(k, v []byte) error { return nil }); !errors.Is(err, ErrSegmentCorrupt) {
		t.Fatalf("damaged segment: %v", err)
	}
}
