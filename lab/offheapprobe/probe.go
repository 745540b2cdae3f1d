package offheapprobe

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/writegc/writegc/arena"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/memtable"
)

// Kind is a memtable kind the probe compares.
type Kind string

// The two kinds, in the order of an even round.
const (
	KindArena   Kind = memtable.KindArena
	KindOffHeap Kind = memtable.KindOffHeap
)

// Defaults of Config: the held-out cross-check of docs/offheap-bimodality.md.
const (
	DefaultRounds    = 5
	DefaultKeys      = 100_000
	DefaultValueSize = 10 << 10
	DefaultMaxAddrs  = 8
)

// Limits of Config.
const (
	MaxRounds    = 1000
	MaxKeys      = 100_000_000
	MaxFillBytes = 64 << 30 // Keys * (key size + ValueSize)
)

// ErrConfig: a Config out of its limits.
var ErrConfig = errors.New("offheapprobe: invalid config")

// Config configures Run. Zero fields take the defaults.
type Config struct {
	Rounds    int // rounds (each fills one memtable of each kind)
	Keys      int // distinct keys per fill
	ValueSize int // bytes per value (0 means the default; values are never empty)
	// HugePages and NoPrefault select the offheap pools' page policy
	// (arena.PoolOptions), so one build measures each.
	HugePages  arena.HugePagePolicy
	NoPrefault bool
	// NoGC skips the runtime.GC before each fill (by default every fill
	// starts from a collected heap).
	NoGC bool
	// FreeOSMemory returns the heap's free memory to the kernel before each
	// fill (debug.FreeOSMemory), so an arena fill always starts on memory
	// it must fault in again, whatever the background scavenger did.
	FreeOSMemory bool
	// Proc labels the records (the index of this process among several).
	Proc int
	// MaxAddrs bounds ChunkLayout.FirstAddrs (0: DefaultMaxAddrs; negative: none).
	MaxAddrs int
	// OnRecord, when set, receives each record as soon as it is made; an
	// error from it stops Run.
	OnRecord func(Record) error
}

// THPSettings are the kernel's transparent huge page settings
// (/sys/kernel/mm/transparent_hugepage), empty where unreadable.
type THPSettings struct {
	Enabled          string `json:"enabled"`
	Defrag           string `json:"defrag"`
	Shmem            string `json:"shmem_enabled"`
	KhugepagedDefrag string `json:"khugepaged_defrag"`
	PMDSize          string `json:"hpage_pmd_size"`
}

// Record is one fill: one kind in one round. Counters are deltas over the
// fill (the package doc says which window).
type Record struct {
	Proc      int    `json:"proc"`
	Round     int    `json:"round"`
	Order     int    `json:"order"` // 0: first kind of its round, 1: second
	Kind      Kind   `json:"kind"`
	Keys      int    `json:"keys"`
	ValueSize int    `json:"value_size"`
	HugePages string `json:"huge_pages"` // the offheap policy in effect (arena.HugePagePolicy)
	Prefault  bool   `json:"prefault"`   // offheap chunks pre-faulted
	GCBefore  bool   `json:"gc_before"`  // runtime.GC before the fill
	FreedOS   bool   `json:"freed_os"`   // debug.FreeOSMemory before the fill

	FillNs  int64   `json:"fill_ns"`
	MBps    float64 `json:"mb_per_s"` // (key + value) bytes per second, 1e6 bytes a MB
	CloseNs int64   `json:"close_ns"` // Close of the memtable and its pool, after the counters

	KernelCounters bool             `json:"kernel_counters"` // the fields below are real (Linux)
	UserNs         int64            `json:"user_ns"`
	SysNs          int64            `json:"sys_ns"`
	MinFlt         int64            `json:"minflt"`
	MajFlt         int64            `json:"majflt"`
	VolCtxSw       int64            `json:"nvcsw"`
	InvolCtxSw     int64            `json:"nivcsw"`
	GCCycles       int64            `json:"gc_cycles"`
	Vmstat         map[string]int64 `json:"vmstat"`           // deltas over the fill (nr_free_pages too: a gauge)
	FreePagesStart int64            `json:"free_pages_start"` // vmstat nr_free_pages before the fill
	// ReportedKiBStart is the guest's free page reporting total
	// (page_reporting_reported_kib, KiB handed back to the host since boot)
	// before the fill; 0 where the kernel does not report free pages.
	ReportedKiBStart int64       `json:"page_reported_kib_start,omitempty"`
	HeapReleasedMB   float64     `json:"heap_released_mb"` // Go heap memory returned to the kernel, before the fill
	Layout           ChunkLayout `json:"layout"`
	THP              THPSettings `json:"thp"`
	Kernel           string      `json:"kernel"`
	GoVersion        string      `json:"go"`
}

// Validate reports whether c (its zero fields taken as the defaults) is
// within the limits: nil or an error wrapping ErrConfig.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	c.Rounds = or(c.Rounds, DefaultRounds)
	c.Keys = or(c.Keys, DefaultKeys)
	c.ValueSize = or(c.ValueSize, DefaultValueSize)
	c.MaxAddrs = or(c.MaxAddrs, DefaultMaxAddrs)
	switch {
	case c.Rounds < 0 || c.Rounds > MaxRounds:
		return c, fmt.Errorf("%w: rounds %d not in [1, %d]", ErrConfig, c.Rounds, MaxRounds)
	case c.Keys < 0 || c.Keys > MaxKeys:
		return c, fmt.Errorf("%w: keys %d not in [1, %d]", ErrConfig, c.Keys, MaxKeys)
	case c.ValueSize < 0 || c.ValueSize > memtable.MaxValueSize:
		return c, fmt.Errorf("%w: value size %d not in [1, %d]", ErrConfig, c.ValueSize, memtable.MaxValueSize)
	case int64(c.Keys)*int64(workload.KeySize+c.ValueSize) > MaxFillBytes:
		return c, fmt.Errorf("%w: %d keys of %d B values exceed %d bytes per fill", ErrConfig, c.Keys, c.ValueSize, int64(MaxFillBytes))
	}
	if _, err := arena.ParseHugePagePolicy(c.HugePages.String()); err != nil {
		return c, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return c, nil
}

func or(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// Run fills Rounds pairs of fresh memtables and returns their records in
// the order they ran: in round r, arena then offheap when r is even,
// offheap then arena when it is odd.
func Run(c Config) ([]Record, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	keys := workload.NewKeys(c.Keys, workload.KeySize, 1)
	value := workload.Value(c.ValueSize)
	thp, kernel := readTHP(), kernelRelease()
	var out []Record
	for r := range c.Rounds {
		order := [2]Kind{KindArena, KindOffHeap}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for i, k := range order {
			rec, err := fill(c, k, keys, value)
			if err != nil {
				return out, fmt.Errorf("offheapprobe: round %d %s: %w", r, k, err)
			}
			rec.Proc, rec.Round, rec.Order, rec.THP, rec.Kernel = c.Proc, r, i, thp, kernel
			out = append(out, rec)
			if c.OnRecord != nil {
				if err := c.OnRecord(rec); err != nil {
					return out, err
				}
			}
		}
	}
	return out, nil
}

// snapshot is the process and system state at one edge of a fill.
type snapshot struct {
	u        usage
	vm       map[string]int64
	cycles   int64
	released uint64 // bytes of heap memory released to the kernel
}

func take() (snapshot, error) {
	u, err := readUsage()
	if err != nil {
		return snapshot{}, err
	}
	vm, err := readVmstat()
	if err != nil {
		return snapshot{}, err
	}
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	var v [2]uint64
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return snapshot{u: u, vm: vm, cycles: int64(v[0]), released: v[1]}, nil
}

// fill puts every key into a fresh memtable of kind k and records it.
func fill(c Config, k Kind, keys *workload.Keys, value []byte) (Record, error) {
	var log chunkLog
	pool, err := arena.NewPool(arena.PoolOptions{OffHeap: k == KindOffHeap, HugePages: c.HugePages,
		NoPrefault: c.NoPrefault, OnNewChunk: log.add})
	if err != nil {
		return Record{}, err
	}
	defer pool.Close()
	m, err := memtable.New(string(k), memtable.Options{Pool: pool})
	if err != nil {
		return Record{}, err
	}
	defer m.Close()
	if !c.NoGC {
		runtime.GC()
	}
	if c.FreeOSMemory {
		debug.FreeOSMemory()
	}
	before, err := take()
	if err != nil {
		return Record{}, err
	}
	start := time.Now()
	for i := range c.Keys {
		if err := m.Put(keys.Key(i), value); err != nil {
			return Record{}, err
		}
	}
	d := time.Since(start)
	after, err := take()
	if err != nil {
		return Record{}, err
	}
	rec := newRecord(c, k, d, before, after)
	maps, err := readSmaps()
	if err != nil {
		return Record{}, err
	}
	rec.Layout = Layout(log.snapshot(), maps, max(c.MaxAddrs, 0))
	t := time.Now()
	if err := m.Close(); err != nil {
		return Record{}, err
	}
	pool.Close()
	rec.CloseNs = time.Since(t).Nanoseconds()
	return rec, nil
}

// newRecord fills a record's identity, timing and counter deltas.
func newRecord(c Config, k Kind, d time.Duration, before, after snapshot) Record {
	bytes := float64(c.Keys) * float64(workload.KeySize+c.ValueSize)
	u := after.u.sub(before.u)
	rec := Record{
		Kind: k, Keys: c.Keys, ValueSize: c.ValueSize,
		HugePages: c.HugePages.String(), Prefault: !c.NoPrefault, GCBefore: !c.NoGC, FreedOS: c.FreeOSMemory,
		FillNs: max(d.Nanoseconds(), 1), KernelCounters: kernelCounters,
		UserNs: u.userNs, SysNs: u.sysNs, MinFlt: u.minflt, MajFlt: u.majflt,
		VolCtxSw: u.nvcsw, InvolCtxSw: u.nivcsw,
		GCCycles: after.cycles - before.cycles, GoVersion: runtime.Version(),
		FreePagesStart: before.vm["nr_free_pages"], HeapReleasedMB: float64(before.released) / (1 << 20),
		ReportedKiBStart: before.vm["page_reporting_reported_kib"],
	}
	rec.MBps = bytes / (float64(rec.FillNs) / 1e9) / 1e6
	if after.vm != nil {
		rec.Vmstat = make(map[string]int64, len(after.vm))
		for name, v := range after.vm {
			rec.Vmstat[name] = v - before.vm[name]
		}
	}
	return rec
}
