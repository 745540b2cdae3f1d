package explain

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Sentinel errors. Errors returned by this package wrap one of these (use
// errors.Is) and name the file or argument at fault.
var (
	// ErrEmpty: the file holds no bytes (or no samples where samples are required).
	ErrEmpty = errors.New("empty profile")
	// ErrCorrupt: the file looks like a profile or trace but cannot be parsed.
	ErrCorrupt = errors.New("corrupt profile")
	// ErrUnsupported: the file parses but is not a kind explain analyses
	// (goroutine or threadcreate profiles, JSON, text, ...).
	ErrUnsupported = errors.New("unsupported profile type")
	// ErrNoProfiles: a directory or argument list held no profile to read.
	ErrNoProfiles = errors.New("no profiles")
	// ErrUnknownKind: ParseKinds met a kind it does not know.
	ErrUnknownKind = errors.New("unknown profile kind")
	// ErrUsage: bad command-line usage of Main; the caller should exit 2.
	ErrUsage = errors.New("usage")
)

// DefaultRegion is the runtime/trace region (or task) type that marks one
// write operation in writegc: trace.WithRegion(ctx, "writegc.put", put).
const DefaultRegion = "writegc.put"

// Options tune the analysis. The zero value is ready to use.
type Options struct {
	// Library lists import-path prefixes (e.g. "github.com/x/lib") whose
	// frames are skipped, like the runtime's, when attributing cost.
	Library []string
	// KeepStdlib attributes cost to standard-library frames instead of
	// skipping them (by default bytes.(*Buffer).grow's cost goes to its caller).
	KeepStdlib bool
	// Region is the trace region or task type of one operation; "" means
	// DefaultRegion.
	Region string
	// SlowOp is the duration above which an operation is slow; 0 means
	// above the p99 of all operations' durations.
	SlowOp time.Duration
	// Top is how many sites each table lists; 0 means 5.
	Top int
	// MaxCycles bounds the GC timeline printed per trace; 0 means 12.
	MaxCycles int
	// MetricsGCCPU, when set, is the GC share of busy CPU (0..1) that
	// runtime/metrics measured over the profile's window; it is copied to
	// Account.MetricsGCCPU and printed beside the profile's figure.
	MetricsGCCPU *float64
}

func (o Options) top() int {
	if o.Top > 0 {
		return o.Top
	}
	return 5
}

func (o Options) maxCycles() int {
	if o.MaxCycles > 0 {
		return o.MaxCycles
	}
	return 12
}

func (o Options) region() string {
	if o.Region != "" {
		return o.Region
	}
	return DefaultRegion
}

func (o Options) attributor() attributor {
	return attributor{library: o.Library, keepStdlib: o.KeepStdlib}
}

// FileType is what a file was detected to hold.
type FileType string

// File types recognised by Explain.
const (
	TypeCPU    FileType = "cpu"
	TypeHeap   FileType = "heap"
	TypeAllocs FileType = "allocs"
	TypeFgprof FileType = "fgprof"
	TypeMutex  FileType = "mutex"
	TypeBlock  FileType = "block"
	TypeTrace  FileType = "trace"
)

// Account is the explanation built from one scenario's files. It is a plain
// value: build it with Explain, then read or print it; it is not safe for
// concurrent mutation. Nil sections were not among the inputs.
type Account struct {
	// Label names the scenario (a directory's base name, or the first file's).
	Label string
	// Files lists each input and its detected type, in input order.
	Files []FileInfo
	// CPU comes from a CPU profile.
	CPU *CPUAccount
	// Allocs holds allocation sites (alloc_objects/alloc_space), from the
	// allocs profile if given, else from the heap profile.
	Allocs *AllocAccount
	// Heap holds in-use sites (inuse_objects/inuse_space) from a heap profile.
	Heap *AllocAccount
	// Wall comes from an fgprof wall-clock profile.
	Wall *WallAccount
	// Traces come from runtime traces (trace.out, flight.out), one each.
	Traces []*TraceAccount
	// Contention comes from mutex and block profiles.
	Contention []*ContentionAccount
	// MetricsGCCPU is runtime/metrics' GC share of busy CPU (0..1) over the
	// same window, when known; printed beside CPU.MetricsComparable.
	MetricsGCCPU *float64

	maxCycles int // Options.MaxCycles, for printing
}

// FileInfo names one input and its detected type.
type FileInfo struct {
	Path string
	Type FileType
}

// Explain reads the given profiles, traces and directories (every
// recognised file directly inside a directory) with default Options.
func Explain(paths ...string) (*Account, error) {
	return ExplainWith(Options{}, paths...)
}

// ExplainWith is Explain with options. Each path is a file or a directory;
// in a directory, files named *.pprof, *.prof, *.pb.gz, *.out or *.trace are
// read, plus metrics.json for MetricsGCCPU. A file given by name must be a
// supported profile or trace.
func ExplainWith(opts Options, paths ...string) (*Account, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("explain: %w given", ErrNoProfiles)
	}
	acc := &Account{MetricsGCCPU: opts.MetricsGCCPU, maxCycles: opts.maxCycles()}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("explain: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, m, err := scanDir(p)
		if err != nil {
			return nil, err
		}
		if acc.MetricsGCCPU == nil && m != nil {
			acc.MetricsGCCPU = m
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("explain: %s: %w found", strings.Join(paths, ", "), ErrNoProfiles)
	}
	acc.Label = label(paths[0])

	var heapP, allocsP *loaded
	for _, f := range files {
		l, err := load(f)
		if err != nil {
			return nil, err
		}
		acc.Files = append(acc.Files, FileInfo{Path: f, Type: l.typ})
		switch l.typ {
		case TypeCPU:
			if acc.CPU != nil {
				return nil, fmt.Errorf("explain: %s: a second CPU profile (first %s); explain one scenario at a time", f, acc.CPU.File)
			}
			acc.CPU, err = analyzeCPU(f, l.prof, opts)
		case TypeHeap:
			heapP = l
		case TypeAllocs:
			allocsP = l
		case TypeFgprof:
			acc.Wall, err = analyzeWall(f, l.prof, opts)
		case TypeMutex, TypeBlock:
			var c *ContentionAccount
			c, err = analyzeContention(f, l.typ, l.prof, opts)
			acc.Contention = append(acc.Contention, c)
		case TypeTrace:
			var t *TraceAccount
			t, err = analyzeTrace(f, l.data, opts)
			acc.Traces = append(acc.Traces, t)
		}
		if err != nil {
			return nil, err
		}
	}
	var err error
	if allocsP != nil {
		acc.Allocs, err = analyzeAllocs(allocsP.path, allocsP.prof, "alloc", opts)
	} else if heapP != nil {
		acc.Allocs, err = analyzeAllocs(heapP.path, heapP.prof, "alloc", opts)
	}
	if err != nil {
		return nil, err
	}
	if heapP != nil {
		if acc.Heap, err = analyzeAllocs(heapP.path, heapP.prof, "inuse", opts); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func label(p string) string {
	p = filepath.Clean(p)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		p = filepath.Dir(p)
	}
	return filepath.Base(p)
}

// scanDir lists the recognised files directly inside dir, sorted, and reads
// metrics.json if present.
func scanDir(dir string) ([]string, *float64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("explain: %w", err)
	}
	var out []string
	var m *float64
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		p := filepath.Join(dir, n)
		if n == MetricsFile {
			v, err := readMetricsFile(p)
			if err != nil {
				return nil, nil, err
			}
			m = v
			continue
		}
		for _, ext := range []string{".pprof", ".prof", ".pb.gz", ".out", ".trace"} {
			if strings.HasSuffix(n, ext) {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out, m, nil
}

// readMetricsFile reads the GC CPU share a Capture wrote.
func readMetricsFile(p string) (*float64, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	var m CaptureMetrics
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("explain: %s: %w: %v", p, ErrCorrupt, err)
	}
	if m.GCCPUShare == nil {
		return nil, nil
	}
	v := *m.GCCPUShare
	return &v, nil
}

type loaded struct {
	path string
	typ  FileType
	prof *profile.Profile
	data []byte // trace bytes
}

// traceMagic is how every runtime/trace file begins: "go 1.NN trace\x00...".
var traceMagic = []byte("go 1.")

// load reads a file and detects its type from its content.
func load(path string) (*loaded, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("explain: %s: %w: file is empty", path, ErrEmpty)
	}
	if bytes.HasPrefix(data, traceMagic) && bytes.Contains(data[:min(len(data), 16)], []byte(" trace")) {
		return &loaded{path: path, typ: TypeTrace, data: data}, nil
	}
	p, err := profile.ParseData(data)
	if err != nil {
		if looksBinaryProfile(data) {
			return nil, fmt.Errorf("explain: %s: %w: %v", path, ErrCorrupt, err)
		}
		return nil, fmt.Errorf("explain: %s: %w: not a Go profile or runtime trace (%v)", path, ErrUnsupported, err)
	}
	typ, err := detect(p, path)
	if err != nil {
		return nil, err
	}
	if len(p.Sample) == 0 && typ != TypeHeap && typ != TypeAllocs && typ != TypeMutex && typ != TypeBlock {
		return nil, fmt.Errorf("explain: %s: %w: %s profile has no samples", path, ErrEmpty, typ)
	}
	return &loaded{path: path, typ: typ, prof: p}, nil
}

// looksBinaryProfile reports whether data starts like a gzip stream or holds
// non-text bytes, i.e. is probably a damaged profile rather than another format.
func looksBinaryProfile(data []byte) bool {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return true
	}
	return bytes.HasPrefix(data, []byte("go 1.")) // damaged trace header
}

func hasType(p *profile.Profile, typ, unit string) bool {
	for _, st := range p.SampleType {
		if st.Type == typ && (unit == "" || st.Unit == unit) {
			return true
		}
	}
	return false
}

func valueIndex(p *profile.Profile, typ string) int {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	return -1
}

// detect tells the profile's kind from its sample and period types.
func detect(p *profile.Profile, path string) (FileType, error) {
	period := ""
	if p.PeriodType != nil {
		period = p.PeriodType.Type
	}
	switch {
	case hasType(p, "cpu", "") || period == "cpu":
		return TypeCPU, nil
	case hasType(p, "alloc_objects", "") || hasType(p, "inuse_objects", "") ||
		hasType(p, "alloc_space", "") || hasType(p, "inuse_space", ""):
		if strings.HasPrefix(p.DefaultSampleType, "alloc_") || (!hasType(p, "inuse_space", "") && !hasType(p, "inuse_objects", "")) {
			return TypeAllocs, nil
		}
		return TypeHeap, nil
	case period == "wallclock" || (hasType(p, "time", "nanoseconds") && !hasType(p, "delay", "")):
		return TypeFgprof, nil
	case hasType(p, "contentions", "") || hasType(p, "delay", ""):
		base := strings.ToLower(filepath.Base(path))
		switch {
		case strings.Contains(base, "block"):
			return TypeBlock, nil
		case strings.Contains(base, "mutex"):
			return TypeMutex, nil
		}
		// Mutex profiles record stacks at the unlock; block profiles at the wait.
		unlocks := 0
		for _, s := range p.Sample {
			fs := frames(s)
			for _, f := range fs[:min(len(fs), 3)] {
				if strings.Contains(f, "Unlock") || strings.HasSuffix(f, "runtime.unlock") || strings.Contains(f, "LostContended") {
					unlocks++
					break
				}
			}
		}
		if 2*unlocks > len(p.Sample) {
			return TypeMutex, nil
		}
		return TypeBlock, nil
	}
	var names []string
	for _, st := range p.SampleType {
		names = append(names, st.Type+"/"+st.Unit)
	}
	return "", fmt.Errorf("explain: %s: %w: sample types %s (want cpu, heap, allocs, fgprof, mutex, block or a runtime trace)",
		path, ErrUnsupported, strings.Join(names, ","))
}

func sortSites(s []Site) {
	slices.SortFunc(s, func(a, b Site) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return strings.Compare(a.Func, b.Func)
	})
}
