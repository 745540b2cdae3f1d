package writepath

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/workload"
)

func TestReadLatencyOption(t *testing.T) {
	if _, err := NewServer(ServerOptions{ReadLatency: -time.Millisecond}); !errors.Is(err, ErrInvalidOption) {
		t.Fatalf("negative ReadLatency: %v, want ErrInvalidOption", err)
	}
	s := newTestServer(t, ServerOptions{})
	if d := s.Options().ReadLatency; d != 0 {
		t.Fatalf("default ReadLatency %v, want 0 (off)", d)
	}
}

// TestReadLatencyModel: with ReadLatency every transport Get request (one
// per region of a multiget) is answered no sooner than ReadLatency later;
// Server.Get is not delayed; a sequential multiget over 8 regions waits 8
// times, a parallel one about once; the answers are unchanged.
func TestReadLatencyModel(t *testing.T) {
	const d = 30 * time.Millisecond
	s := newTestServer(t, ServerOptions{Regions: 8, ReadLatency: d})
	keys := workload.NewKeys(800, 16, 11)
	for i := range keys.Len() {
		if err := s.Put(keys.Key(i), valueFor(i, 8)); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	if _, ok, err := s.Get(keys.Key(0)); !ok || err != nil {
		t.Fatalf("Server.Get: %v %v", ok, err)
	}
	if e := time.Since(t0); e >= d {
		t.Fatalf("Server.Get took %v: it must not be delayed", e)
	}
	ks := make([][]byte, 100)
	for i := range ks {
		ks[i] = keys.Key(i * 7)
	}
	for _, tr := range Transports() {
		t.Run("transport="+tr, func(t *testing.T) {
			tp := connect(t, tr, s)
			t0 := time.Now()
			if _, err := tp.Get(ks[:1]); err != nil {
				t.Fatal(err)
			}
			if e := time.Since(t0); e < d {
				t.Fatalf("one Get request took %v, want >= %v", e, d)
			}
			mg := NewMultiGetter(tp)
			took := map[string]time.Duration{}
			for _, mode := range MultiGetModes() {
				t0 := time.Now()
				vals, err := mg.MultiGet(context.Background(), ks, mode)
				took[mode] = time.Since(t0)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					if string(v) != string(valueFor(i*7, 8)) {
						t.Fatalf("%s: key %d: wrong value", mode, i)
					}
				}
			}
			if took[MultiGetSequential] < 8*d {
				t.Fatalf("sequential multiget over 8 regions took %v, want >= %v", took[MultiGetSequential], 8*d)
			}
			if took[MultiGetParallel] < d || took[MultiGetParallel] > took[MultiGetSequential]/2 {
				t.Fatalf("parallel multiget took %v (sequential %v): want >= %v and well under sequential",
					took[MultiGetParallel], took[MultiGetSequential], d)
			}
		})
	}
}

// TestReadLatencyClose: reads still waiting for their modelled block read
// when the transport and server close are answered, never left hanging.
func TestReadLatencyClose(t *testing.T) {
	for _, tr := range Transports() {
		t.Run("transport="+tr, func(t *testing.T) {
			s, err := NewServer(ServerOptions{Regions: 4, ReadLatency: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			s.Put([]byte("k"), []byte("v"))
			tp, closeT, err := Connect(tr, s)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tp.Get([][]byte{[]byte("k")}) // any outcome; it must return
				}()
			}
			time.Sleep(10 * time.Millisecond)
			closeT()
			s.Close()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Gets waiting on the read latency hang after Close")
			}
		})
	}
}
