package gcstress

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/gcstress/results"
)

// Two engines of the kind a new user writes: a 16-shard
// map[string][]byte, which holds two heap objects per entry (the key string
// and the value), and a segment store that copies every entry into large
// []byte segments indexed by map[uint64]uint32, which holds a few objects
// per segment. The first reports the entries it holds; the second does
// not (its footprint divides by the keys written).
const (
	testShardMapKind = "test-shardmap"
	testSegmentKind  = "test-segstore"
)

func init() {
	RegisterEngine(testShardMapKind, func(Scenario) (Engine, error) {
		e := &shardMap{seed: maphash.MakeSeed()}
		for i := range e.shards {
			e.shards[i].m = map[string][]byte{}
		}
		return e, nil
	})
	RegisterEngine(testSegmentKind, func(Scenario) (Engine, error) {
		return &segStore{index: map[uint64]uint32{}, seed: maphash.MakeSeed()}, nil
	})
}

type shardMap struct {
	seed   maphash.Seed
	shards [16]struct {
		mu sync.Mutex
		m  map[string][]byte
	}
}

func (e *shardMap) Put(key, value []byte) error {
	sh := &e.shards[maphash.Bytes(e.seed, key)%16]
	v := append([]byte(nil), value...)
	sh.mu.Lock()
	sh.m[string(key)] = v
	sh.mu.Unlock()
	return nil
}

func (e *shardMap) Stats() EngineStats {
	var n int64
	for i := range e.shards {
		e.shards[i].mu.Lock()
		n += int64(len(e.shards[i].m))
		e.shards[i].mu.Unlock()
	}
	return EngineStats{Entries: n}
}

func (e *shardMap) Close() error { return nil }

// segSize is a segment store's segment: 4 MiB, pointer-free.
const segSize = 4 << 20

type segStore struct {
	mu    sync.Mutex
	seed  maphash.Seed
	segs  [][]byte
	index map[uint64]uint32 // key hash -> segment number << 22 | offset
}

func (e *segStore) Put(key, value []byte) error {
	h := maphash.Bytes(e.seed, key)
	n := 4 + len(key) + len(value)
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.segs) == 0 || len(e.segs[len(e.segs)-1])+n > segSize {
		e.segs = append(e.segs, make([]byte, 0, segSize))
	}
	s := len(e.segs) - 1
	off := len(e.segs[s])
	seg := binary.LittleEndian.AppendUint16(e.segs[s], uint16(len(key)))
	seg = binary.LittleEndian.AppendUint16(seg, uint16(len(value)))
	seg = append(append(seg, key...), value...)
	e.segs[s] = seg
	e.index[h] = uint32(s)<<22 | uint32(off)
	return nil
}

func (e *segStore) Close() error { return nil }

// TestFootprintSeparatesEngines runs both engines through the child and
// checks the end record's footprint: the sharded map holds over 100x the
// objects per entry of the segment store, and each says where its entry
// count came from. GC CPU per Put is logged, not asserted: at this size a
// run holds few cycles, and their CPU depends on the machine.
func TestFootprintSeparatesEngines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two child processes")
	}
	const keys = 150_000
	ends := map[string]*Sample{}
	var rs []Result
	for _, kind := range []string{testShardMapKind, testSegmentKind} {
		s := tinyScenario(t, kind+"/100B", kind, keys)
		res, err := (&Runner{}).Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if res.End == nil {
			t.Fatalf("%s: no end record: %s", kind, res.Stderr)
		}
		e := res.End
		t.Logf("%s: %.3f objects/entry, %.1f B/entry, %.1f scan B/entry, %.1f GC ns/Put, %.1f assist ns/Put, %.2f CPU s/GB, %.2f GC s/GB (%d entries from %s)",
			kind, e.ObjectsPerEntry, e.BytesPerEntry, e.ScanPerEntry, e.GCCPUNsPerPut, e.AssistNsPerPut, e.CPUSPerGB, e.GCCPUSPerGB, e.Entries, e.EntriesFrom)
		if e.CPUSPerGB <= 0 {
			t.Errorf("%s: cpu_s_per_gb %v", kind, e.CPUSPerGB)
		}
		ends[kind] = e
		rs = append(rs, res)
	}
	// The terminal report's conclusion names the segment store as the one
	// holding fewer objects per entry (the GC CPU clause's order is the
	// machine's, so it is not asserted).
	var rep bytes.Buffer
	if err := report.WriteTable(&rep, &Summary{Results: rs, Rules: results.DefaultThresholds().String()}); err != nil {
		t.Fatal(err)
	}
	if want := "At 100B values (150K keys), " + testSegmentKind + " holds "; !strings.Contains(rep.String(), want) {
		t.Errorf("no conclusion %q in the report:\n%s", want, rep.String())
	}
	m, g := ends[testShardMapKind], ends[testSegmentKind]
	if m.EntriesFrom != results.EntriesEngine || m.Entries != keys {
		t.Errorf("shardmap: %d entries from %q, want %d from the engine", m.Entries, m.EntriesFrom, keys)
	}
	if g.EntriesFrom != results.EntriesKeys || g.Entries != keys {
		t.Errorf("segstore: %d entries from %q, want %d from the keys", g.Entries, g.EntriesFrom, keys)
	}
	if m.ObjectsPerEntry < 1.5 || m.ObjectsPerEntry <= 100*g.ObjectsPerEntry {
		t.Errorf("objects per entry: shardmap %.4f, segstore %.4f: want shardmap >= 1.5 and > 100x", m.ObjectsPerEntry, g.ObjectsPerEntry)
	}
	if m.ScanPerEntry <= g.ScanPerEntry {
		t.Errorf("pointer-bearing bytes per entry: shardmap %.1f <= segstore %.1f", m.ScanPerEntry, g.ScanPerEntry)
	}
	if m.BytesPerEntry < 100 || g.BytesPerEntry < 100 {
		t.Errorf("bytes per entry %.1f and %.1f: each holds its 100 B values", m.BytesPerEntry, g.BytesPerEntry)
	}
}

// TestFootprintOfAWritegcKind: writegc's kinds report the entries of their
// unflushed memtables, so their footprint divides by those.
func TestFootprintOfAWritegcKind(t *testing.T) {
	s := tinyScenario(t, "arena/100B", "arena", 20_000)
	s.Memstore = 64 << 20 // nothing flushes: every entry is held
	res, err := (&Runner{}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	e := res.End
	if e == nil || e.EntriesFrom != results.EntriesEngine || e.Entries != 20_000 || e.BytesPerEntry < 100 {
		t.Fatalf("end %+v, stderr %s", e, res.Stderr)
	}
}
