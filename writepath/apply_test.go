package writepath

import (
	"errors"
	"fmt"
	"testing"
)

// TestSortedApply: a batch large enough to be inserted in key order keeps
// batch semantics: a later Put of the same key wins, every entry lands in
// its region, and the counters match.
func TestSortedApply(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "arena", Regions: 4})
	b := NewBatch(0)
	const n = 4 * SortedApplyMin
	// Keys in descending order, each written twice: first "old", then "new".
	for round, v := range []string{"old", "new"} {
		for i := n - 1; i >= 0; i-- {
			b.Add(fmt.Appendf(nil, "%c-key-%04d", 'a'+i%26, i), fmt.Appendf(nil, "%s-%d-%d", v, i, round))
		}
	}
	if err := s.PutBatch(b); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		v, ok, err := s.Get(fmt.Appendf(nil, "%c-key-%04d", 'a'+i%26, i))
		if err != nil || !ok || string(v) != fmt.Sprintf("new-%d-1", i) {
			t.Fatalf("key %d: %q %v %v, want the later Put", i, v, ok, err)
		}
	}
	if st := s.Stats(); st.Puts != 2*n {
		t.Fatalf("Puts %d, want %d", st.Puts, 2*n)
	}
}

// TestSortedApplyFailure: a sorted batch that fails part-way reports how
// many entries were applied, and those are the smallest keys.
func TestSortedApplyFailure(t *testing.T) {
	kind, fault := faultKind(t, "btree")
	s := newTestServer(t, ServerOptions{Kind: kind})
	boom := errors.New("boom")
	const n, stop = 3 * SortedApplyMin, SortedApplyMin + 5
	// Entries go in key order, so the one that fails is entry stop.
	fault.set(func(key []byte) error {
		if string(key) == fmt.Sprintf("key-%04d", stop) {
			return boom
		}
		return nil
	})
	b := NewBatch(0)
	for i := n - 1; i >= 0; i-- {
		b.Add(fmt.Appendf(nil, "key-%04d", i), []byte("v"))
	}
	var be *BatchError
	if err := s.PutBatch(b); !errors.As(err, &be) || be.Applied != stop || !errors.Is(err, boom) {
		t.Fatalf("PutBatch: %v, want BatchError applied=%d", err, stop)
	}
	for i := range n {
		_, ok, _ := s.Get(fmt.Appendf(nil, "key-%04d", i))
		if ok != (i < stop) {
			t.Fatalf("key %d: found=%v, want %v (applied = the %d smallest keys)", i, ok, i < stop, stop)
		}
	}
	if st := s.Stats(); st.Puts != stop {
		t.Fatalf("Puts %d, want %d", st.Puts, stop)
	}
}
