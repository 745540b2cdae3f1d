//go:build linux

package arena

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageSize returns the size of a transparent huge page when the kernel
// would give them to memory advised MADV_HUGEPAGE (THP mode "always" or
// "madvise"), else 0. It reads sysfs once per process.
var hugePageSize = sync.OnceValue(func() int {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		return 0
	}
	raw, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if err != nil || n < os.Getpagesize() || n&(n-1) != 0 {
		return 0
	}
	return n
})

// adviseHuge asks the kernel to back b with transparent huge pages. It is
// advice: a kernel that declines leaves b on small pages.
func adviseHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }

// adviseNoHuge asks the kernel to keep b on small pages (MADV_NOHUGEPAGE),
// out of reach of khugepaged too. It is advice, like adviseHuge.
func adviseNoHuge(b []byte) { _ = unix.Madvise(b, unix.MADV_NOHUGEPAGE) }

// noPopulate is set once MADV_POPULATE_WRITE proved unsupported (kernels
// before 5.14 answer EINVAL), so later chunks do not ask again.
var noPopulate atomic.Bool

// prefault faults b's pages in, writable, in one system call
// (MADV_POPULATE_WRITE), so the writers that fill the chunk take no page
// faults. Where the kernel cannot, b is left to fault on first touch; a
// failure under memory pressure likewise leaves it to fault later.
func prefault(b []byte) {
	if noPopulate.Load() {
		return
	}
	if err := unix.Madvise(b, unix.MADV_POPULATE_WRITE); errors.Is(err, unix.EINVAL) {
		noPopulate.Store(true)
	}
}

// prefaultHeap is prefault for an on-heap chunk (a Go heap object): it faults
// in the whole pages inside b. A fresh chunk's pages are memory the Go heap
// has just taken from the kernel (or had returned to it), untouched until the
// arena writes them, so without this every 4 KiB of a chunk costs its writer
// one page fault, and on a virtual machine a fault is several microseconds.
// One MADV_POPULATE_WRITE per chunk takes them all in the kernel at once;
// pages already resident (a span the heap reused and zeroed) cost a walk.
// It changes no flag of the mapping, so the runtime's own use of the memory
// (scavenging it after the chunk is freed) is untouched. Chunks below 64 KiB
// are left to fault on first touch.
func prefaultHeap(b []byte) {
	const minPrefault = 64 << 10
	if len(b) < minPrefault {
		return
	}
	ps := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + ps - 1) &^ (ps - 1)
	hi := (start + uintptr(len(b))) &^ (ps - 1)
	if hi <= lo || hi-lo < minPrefault {
		return
	}
	prefault(b[lo-start : hi-start])
}
