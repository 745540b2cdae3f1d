package arena

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/writegc/writegc/internal/oskit"
)

// vmFlags returns the VmFlags of the /proc/self/smaps mapping holding addr.
func vmFlags(t *testing.T, addr uintptr) []string {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= l && uint64(addr) < h
			continue
		}
		if in && len(f) > 0 && f[0] == "VmFlags:" {
			return f[1:]
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}

// TestOffHeapHugePagePolicy checks each policy's advice in the mapping's
// VmFlags (hg: MADV_HUGEPAGE, nh: MADV_NOHUGEPAGE) and that every policy
// keeps 2 MiB chunks aligned.
func TestOffHeapHugePagePolicy(t *testing.T) {
	if !offHeapAvailable || hugePageSize() == 0 {
		t.Skip("no transparent huge pages here")
	}
	want := map[HugePagePolicy][2]bool{ // has hg, has nh
		HugePagesAdvise: {true, false}, HugePagesSystem: {false, false}, HugePagesNever: {false, true},
	}
	for pol, w := range want {
		var addr uintptr
		p, err := NewPool(PoolOptions{OffHeap: true, HugePages: pol, OnNewChunk: func(a uintptr, _ int) { addr = a }})
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.get()
		if err != nil {
			t.Fatal(err)
		}
		if addr%uintptr(hugePageSize()) != 0 {
			t.Errorf("%v: chunk at %#x not aligned to %d", pol, addr, hugePageSize())
		}
		flags := vmFlags(t, addr)
		hg, nh := slices.Contains(flags, "hg"), slices.Contains(flags, "nh")
		if hg != w[0] || nh != w[1] {
			t.Errorf("%v: VmFlags %v: hg=%v nh=%v, want hg=%v nh=%v", pol, flags, hg, nh, w[0], w[1])
		}
		p.put(c)
		p.Close()
	}
}

// TestOffHeapNoPrefault checks that NoPrefault leaves a small-page chunk to
// fault on first touch: one fault per 4 KiB page.
func TestOffHeapNoPrefault(t *testing.T) {
	if !offHeapAvailable {
		t.Skip("mmap unavailable")
	}
	if invariants {
		t.Skip("race and invariants builds fault on their own bookkeeping")
	}
	if _, ok := oskit.MinorFaults(); !ok {
		t.Skip("no /proc/self/stat on this system")
	}
	c := pooledChunk(t, PoolOptions{OffHeap: true, HugePages: HugePagesNever, NoPrefault: true})
	if n, pages := faultsWriting(c.buf), uint64(len(c.buf)/os.Getpagesize()); n < pages/2 {
		t.Errorf("writing a chunk that was not pre-faulted took %d faults, want about %d", n, pages)
	}
}
