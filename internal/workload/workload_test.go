package workload

import (
	"bytes"
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	sizes := map[string]int64{"10": 10, "10B": 10, "1KB": 1024, "1kib": 1024, "10KB": 10240, "2MB": 2 << 20, "1.5K": 1536, "0": 0}
	for in, want := range sizes {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	counts := map[string]int64{"10M": 1e7, "1e9": 1e9, "100K": 1e5, "1B": 1e9, "42": 42}
	for in, want := range counts {
		if got, err := ParseCount(in); err != nil || got != want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "1QB", "NaN"} {
		if _, err := ParseSize(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseSize(%q) err = %v", bad, err)
		}
		if _, err := ParseCount(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCount(%q) err = %v", bad, err)
		}
	}
	if FormatSize(1024) != "1KB" || FormatSize(100) != "100B" || FormatCount(1e6) != "1M" || FormatCount(100000) != "100K" {
		t.Error("format")
	}
}

func TestKeysDistinct(t *testing.T) {
	k := NewKeys(100000, 16, 1)
	seen := make(map[string]bool, k.Len())
	for i := range k.Len() {
		s := string(k.Key(i))
		if seen[s] {
			t.Fatalf("duplicate key %d", i)
		}
		seen[s] = true
	}
	var a, b [16]byte
	KeyAt(a[:], 7, 3)
	KeyAt(b[:], 7, 3)
	if !bytes.Equal(a[:], b[:]) {
		t.Fatal("KeyAt not deterministic")
	}
}
