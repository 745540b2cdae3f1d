package writepath

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
)

// Scan crosses regions in key order, gives each key once with its latest
// value (an overwrite in the active memtable wins over a frozen one) and
// stops at n.
func TestScan(t *testing.T) {
	s, err := NewServer(ServerOptions{Kind: "heap", Regions: 4, FlushThreshold: 4 << 10, Flushers: 1,
		FlushBandwidth: 1, NoBackpressure: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := func(i uint64) []byte {
		b := make([]byte, 16)
		binary.BigEndian.PutUint64(b, i<<54) // spread over the regions' ranges
		return b
	}
	const n = 1000
	for i := range uint64(n) {
		if err := s.Put(key(i), []byte("old")); err != nil {
			t.Fatal(err)
		}
	}
	for i := range uint64(n) {
		if i%3 == 0 {
			if err := s.Put(key(i), []byte("new")); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	var prev []byte
	err = s.Scan(key(200), 700, func(k, v []byte) bool {
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("keys out of order")
		}
		prev = bytes.Clone(k)
		i := binary.BigEndian.Uint64(k) >> 54
		got = append(got, fmt.Sprintf("%d=%s", i, v))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 700 || got[0] != "200=old" || got[1] != "201=new" || got[699] != "899=old" {
		t.Fatalf("%d entries, first %v, last %v", len(got), got[:2], got[len(got)-1])
	}
	if err := s.Scan(nil, 0, nil); err == nil {
		t.Error("Scan of 0 entries: no error")
	}
}
