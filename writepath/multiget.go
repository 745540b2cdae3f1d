package writepath

import (
	"context"
	"fmt"
	"sync"
)

// Multiget modes.
const (
	MultiGetSequential = "sequential"
	MultiGetParallel   = "parallel"
	// DefaultMultiGetKeys is the keys per request of the HBASE-3553 workload.
	DefaultMultiGetKeys = 100
)

// MultiGetModes lists the modes MultiGet accepts.
func MultiGetModes() []string { return []string{MultiGetSequential, MultiGetParallel} }

// MultiGetter answers a request for many keys by grouping them by region
// (the client knows the regions' key ranges, see RegionOf) and sending one
// Get per region: one region after the other ("sequential", HBase before
// HBASE-3553) or all at once, one goroutine per region ("parallel").
//
// Concurrency: safe for concurrent use. Lifetime: as long as its transport.
type MultiGetter struct {
	t       Transport
	regions int
}

// NewMultiGetter returns a MultiGetter over t.
func NewMultiGetter(t Transport) *MultiGetter {
	return &MultiGetter{t: t, regions: max(t.Regions(), 1)}
}

// MultiGet returns the values of keys in order: nil where a key is not
// found, a non-nil (possibly empty) slice where it is. ctx is checked
// before each region's request (sequential) or while waiting (parallel).
func (m *MultiGetter) MultiGet(ctx context.Context, keys [][]byte, mode string) ([][]byte, error) {
	if mode != MultiGetSequential && mode != MultiGetParallel {
		return nil, fmt.Errorf("%w %q (known: sequential, parallel)", ErrUnknownMode, mode)
	}
	// Group key indexes by region.
	groups := make([][]int, m.regions)
	for i, k := range keys {
		r := RegionOf(k, m.regions)
		groups[r] = append(groups[r], i)
	}
	out := make([][]byte, len(keys))
	ask := func(idx []int) error {
		ks := make([][]byte, len(idx))
		for j, i := range idx {
			ks[j] = keys[i]
		}
		vals, err := m.t.Get(ks)
		if err != nil {
			return err
		}
		for j, i := range idx {
			out[i] = vals[j]
		}
		return nil
	}
	if mode == MultiGetSequential {
		for _, idx := range groups {
			if len(idx) == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := ask(idx); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
	)
	done := make(chan struct{})
	for _, idx := range groups {
		if len(idx) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ask(idx); err != nil {
				mu.Lock()
				if ferr == nil {
					ferr = err
				}
				mu.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if ferr != nil {
		return nil, ferr
	}
	return out, nil
}
