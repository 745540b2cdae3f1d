//go:build unix

package arena

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// offHeapAvailable reports whether off-heap chunks really live outside the Go
// heap on this platform. Its twin in source_heap.go says false.
const offHeapAvailable = true

// offHeapAlloc maps n bytes of anonymous private memory outside the Go heap,
// ready to be written without page faults where the kernel allows:
//   - when the kernel has transparent huge pages (hugePageSize > 0) and n is
//     a multiple of their size, the mapping is aligned to that size and
//     advised according to pol.huge (HugePagesAdvise: as huge, so each huge
//     page is one fault instead of hundreds);
//   - unless pol.noPrefault, the pages are then pre-faulted (prefault), so
//     writers into the chunk take no faults at all. Where the kernel cannot
//     pre-fault, the first touch of each page faults as before.
//
// Either way the memory reads as zeros until written, and, pre-faulted, all
// of it is resident from here until offHeapFree.
func offHeapAlloc(n int, pol offHeapPolicy) ([]byte, error) {
	align := hugePageSize()
	huge := align > 0 && n%align == 0
	var b []byte
	var err error
	if huge {
		b, err = mapAligned(n, align)
	} else {
		b, err = mapAnon(n)
	}
	if err != nil {
		return nil, err
	}
	if huge {
		switch pol.huge {
		case HugePagesAdvise:
			adviseHuge(b)
		case HugePagesNever:
			adviseNoHuge(b)
		}
	}
	if !pol.noPrefault {
		prefault(b)
	}
	return b, nil
}

// mapAnon maps n bytes of anonymous private read-write memory.
func mapAnon(n int) ([]byte, error) {
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("arena: mmap %d bytes: %w", n, err)
	}
	return unsafe.Slice((*byte)(p), n), nil
}

// mapAligned maps n bytes whose address is a multiple of align (a power of
// two, at least a page): it maps n+align bytes and unmaps the head and tail
// around the aligned range.
func mapAligned(n, align int) ([]byte, error) {
	r, err := mapAnon(n + align)
	if err != nil {
		return nil, err
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(r)))
	head := int((uintptr(align) - base%uintptr(align)) % uintptr(align))
	if head > 0 {
		if err := unmap(r[:head]); err != nil {
			return nil, err
		}
	}
	if tail := len(r) - head - n; tail > 0 {
		if err := unmap(r[head+n:]); err != nil {
			return nil, err
		}
	}
	return r[head : head+n : head+n], nil
}

// unmap unmaps a page-aligned range this package mapped.
func unmap(b []byte) error {
	if err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))); err != nil {
		return fmt.Errorf("arena: munmap %d bytes: %w", len(b), err)
	}
	return nil
}

// offHeapFree unmaps memory returned by offHeapAlloc: its pages and its
// address range go back to the kernel at once.
func offHeapFree(b []byte) error { return unmap(b) }
