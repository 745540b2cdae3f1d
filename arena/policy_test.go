package arena

import (
	"errors"
	"testing"
)

func TestHugePagePolicyNames(t *testing.T) {
	for _, p := range []HugePagePolicy{HugePagesAdvise, HugePagesSystem, HugePagesNever} {
		got, err := ParseHugePagePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParseHugePagePolicy(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	for _, s := range []string{"", "Advise", "always", "madvise "} {
		if _, err := ParseHugePagePolicy(s); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("ParseHugePagePolicy(%q) err = %v, want ErrInvalidOption", s, err)
		}
	}
	if _, err := NewPool(PoolOptions{OffHeap: true, HugePages: HugePagePolicy(9)}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("NewPool with HugePages 9: err = %v, want ErrInvalidOption", err)
	}
	if s := HugePagePolicy(9).String(); s != "HugePagePolicy(9)" {
		t.Errorf("String of an unknown policy = %q", s)
	}
}

// TestOnNewChunk checks that the hook sees every new chunk, regular and
// jumbo, with its address and size, and not a reused idle chunk.
func TestOnNewChunk(t *testing.T) {
	for _, off := range []bool{false, true} {
		type seen struct {
			addr uintptr
			size int
		}
		var got []seen
		p, err := NewPool(PoolOptions{ChunkSize: 64 << 10, MaxPooled: 1, OffHeap: off,
			OnNewChunk: func(a uintptr, n int) { got = append(got, seen{a, n}) }})
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(Options{Pool: p, MaxAlloc: 1 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Alloc(100); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Alloc(100 << 10); err != nil { // jumbo
			t.Fatal(err)
		}
		a.Release()
		b, _ := New(Options{Pool: p, MaxAlloc: 1 << 10})
		if _, err := b.Alloc(100); err != nil { // the idle chunk, reused
			t.Fatal(err)
		}
		b.Release()
		p.Close()
		if len(got) != 2 || got[0].size != 64<<10 || got[1].size != 100<<10 || got[0].addr == 0 || got[1].addr == 0 {
			t.Errorf("offheap=%v: hook saw %+v, want one 64 KiB and one 100 KiB chunk", off, got)
		}
	}
}
