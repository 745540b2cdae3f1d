package offheapprobe

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func TestLayout(t *testing.T) {
	const mb = 1 << 20
	chunks := []Chunk{{0x7f0000400000, 2 * mb}, {0x7f0000000000, 2 * mb}, {0x7f0000a01000, 2 * mb}}
	maps := []Mapping{
		{Start: 0x400000, End: 0x500000, RssKB: 100},
		{Start: 0x7f0000000000, End: 0x7f0000600000, RssKB: 6144, AnonHugeKB: 4096, HugeAdvised: true},
		{Start: 0x7f0000600000, End: 0x7f0000a01000, RssKB: 7}, // touches no chunk: ends where the third starts
		{Start: 0x7f0000a01000, End: 0x7f0000c01000, RssKB: -1, AnonHugeKB: -1, NoHuge: true},
		{Start: 0x7f0001000000, End: 0x7f0002000000, RssKB: 9},
	}
	got := Layout(chunks, maps, 2)
	want := ChunkLayout{
		Chunks: 3, ChunkBytes: 6 * mb, Aligned2M: 2,
		LowAddr: "0x7f0000000000", HighAddr: "0x7f0000c01000",
		FirstAddrs: []string{"0x7f0000400000", "0x7f0000000000"},
		Mappings:   2, RssKB: 6144, AnonHugeKB: 4096, Advised: 1, NoHuge: 1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Layout =\n%+v\nwant\n%+v", got, want)
	}
	if e := Layout(nil, maps, 8); e.Chunks != 0 || e.Mappings != 0 || e.LowAddr != "" {
		t.Errorf("Layout of no chunks = %+v", e)
	}
}

func TestChunkLogConcurrent(t *testing.T) {
	var l chunkLog
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := range 100 {
				l.add(uintptr(g<<20+i), 1)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	if n := len(l.snapshot()); n != 400 {
		t.Errorf("logged %d chunks, want 400", n)
	}
}

func TestSummarizeTable(t *testing.T) {
	rec := func(proc, round int, k Kind, fillMs int64, vm map[string]int64) Record {
		return Record{Proc: proc, Round: round, Kind: k, FillNs: fillMs * 1e6, SysNs: fillMs * 1e5, MinFlt: fillMs * 3, Vmstat: vm,
			Layout: ChunkLayout{AnonHugeKB: 1 << 20}}
	}
	recs := []Record{
		rec(1, 0, KindArena, 100, nil), rec(1, 0, KindOffHeap, 210, map[string]int64{"thp_fault_alloc": 3, "thp_fault_fallback": 509, "compact_stall": 40, "allocstall_normal": 2, "allocstall_movable": 5}),
		rec(0, 1, KindOffHeap, 95, map[string]int64{"thp_fault_alloc": 512}), rec(0, 1, KindArena, 100, nil),
		rec(0, 0, KindArena, 100, nil), rec(0, 0, KindOffHeap, 110, nil),
		rec(2, 0, KindArena, 100, nil), // no offheap: left out
	}
	rows := Summarize(recs)
	if len(rows) != 3 || rows[0].Proc != 0 || rows[0].Round != 0 || rows[2].Proc != 1 {
		t.Fatalf("rows %+v", rows)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	testkit.CheckGolden(t, "testdata/summary.golden.txt", b.Bytes())
}
