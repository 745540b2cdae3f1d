package offheapprobe

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// hugeAlign is the alignment Layout counts chunks against: a PMD huge page
// on amd64 and arm64 with 4 KiB pages.
const hugeAlign = 2 << 20

// Chunk is one chunk a pool allocated: its address and size.
type Chunk struct {
	Addr uintptr
	Size int
}

// chunkLog collects the chunks of one pool through arena.PoolOptions.
// OnNewChunk. Safe for concurrent use.
type chunkLog struct {
	mu     sync.Mutex
	chunks []Chunk
}

func (l *chunkLog) add(addr uintptr, size int) {
	l.mu.Lock()
	l.chunks = append(l.chunks, Chunk{addr, size})
	l.mu.Unlock()
}

func (l *chunkLog) snapshot() []Chunk {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.chunks)
}

// ChunkLayout is where one memtable's chunks lie and what the kernel held
// for the mappings that contain them, read after the fill. For offheap the
// mappings are the chunks' own mmap regions (adjacent ones with the same
// flags merge into one); for arena they are the Go heap's arenas, which
// hold other objects too, so their Rss is an upper bound.
type ChunkLayout struct {
	Chunks     int      `json:"chunks"`
	ChunkBytes int64    `json:"chunk_bytes"`
	Aligned2M  int      `json:"aligned_2m"` // chunks whose address is a multiple of 2 MiB
	LowAddr    string   `json:"low_addr"`
	HighAddr   string   `json:"high_addr"`   // end of the highest chunk
	FirstAddrs []string `json:"first_addrs"` // the first chunks' addresses, in allocation order
	Mappings   int      `json:"mappings"`    // smaps entries overlapping a chunk
	RssKB      int64    `json:"rss_kb"`
	AnonHugeKB int64    `json:"anon_huge_kb"`
	Advised    int      `json:"advised_hugepage"`   // of Mappings: VmFlags hg
	NoHuge     int      `json:"advised_nohugepage"` // of Mappings: VmFlags nh
}

// Layout describes chunks (in allocation order) against maps (ascending,
// as ParseSmaps returns them), listing at most maxAddrs addresses.
func Layout(chunks []Chunk, maps []Mapping, maxAddrs int) ChunkLayout {
	var l ChunkLayout
	l.Chunks = len(chunks)
	for i, c := range chunks {
		l.ChunkBytes += int64(c.Size)
		if c.Addr%hugeAlign == 0 {
			l.Aligned2M++
		}
		if i < maxAddrs {
			l.FirstAddrs = append(l.FirstAddrs, hexAddr(uint64(c.Addr)))
		}
	}
	if len(chunks) == 0 {
		return l
	}
	sorted := slices.Clone(chunks)
	slices.SortFunc(sorted, func(a, b Chunk) int { return cmp.Compare(a.Addr, b.Addr) })
	l.LowAddr = hexAddr(uint64(sorted[0].Addr))
	hi := uint64(0)
	for _, c := range sorted {
		hi = max(hi, uint64(c.Addr)+uint64(c.Size))
	}
	l.HighAddr = hexAddr(hi)
	j := 0
	for _, m := range maps {
		for j < len(sorted) && uint64(sorted[j].Addr)+uint64(sorted[j].Size) <= m.Start {
			j++
		}
		if j == len(sorted) || uint64(sorted[j].Addr) >= m.End {
			continue
		}
		l.Mappings++
		l.RssKB += max(m.RssKB, 0)
		l.AnonHugeKB += max(m.AnonHugeKB, 0)
		if m.HugeAdvised {
			l.Advised++
		}
		if m.NoHuge {
			l.NoHuge++
		}
	}
	return l
}

func hexAddr(a uint64) string { return fmt.Sprintf("%#x", a) }
