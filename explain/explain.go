package explain

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/pprof/profile"

	"github.com/writegc/writegc/internal/inputfile"
	"github.com/writegc/writegc/internal/usage"
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
	// ErrUnknownProfile: ParseProfiles met a kind it does not know.
	ErrUnknownProfile = errors.New("unknown profile kind")
	// ErrUsage: bad command-line usage of `gcstress explain` (whose flags
	// package gcstress/cli parses); the caller should exit 2. It is
	// internal/usage's ErrUsage, the one gcstress wraps too.
	ErrUsage = usage.ErrUsage
	// ErrNotRegular: a file to read is not a regular file (a FIFO, a device
	// such as /dev/zero, a socket); it is refused before it is read, and a
	// FIFO without blocking. The caller should exit 2, as for bad usage.
	ErrNotRegular = inputfile.ErrNotRegular
	// ErrTooLarge: a file to read is over its limit (MaxFileBytes,
	// MaxMetricsBytes); refused before it is read.
	ErrTooLarge = inputfile.ErrTooLarge
)

// Input limits, checked before a file is read (and while it is read, for a
// file that grows).
const (
	// MaxFileBytes bounds one profile or trace: explain reads each whole, so
	// this bounds its memory; a scenario's captured trace is tens of MiB.
	MaxFileBytes int64 = 512 << 20
	// MaxMetricsBytes bounds metrics.json, a few hundred bytes as a Capture
	// writes it.
	MaxMetricsBytes int64 = 1 << 20
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

// ScenarioCost is what a gcstress scenario's end record says about the
// engine (see gcstress/results.Footprint and Cost): heap per entry after a
// forced GC, and GC CPU per Put over the windows after the warm-up, with
// the run's GC share of busy CPU by runtime/metrics (the scenario table's
// figure, which leaves out idle-priority marking; the profile's share is
// over the profile's window and counts every GC frame, so the two may
// differ). A plain value.
type ScenarioCost struct {
	ObjectsPerEntry, BytesPerEntry float64
	GCCPUNsPerPut, AssistNsPerPut  float64
	GCShare                        float64 // 0..1
}

// Account is the explanation built from one scenario's files. It is a plain
// value: build it with Explain, then read or print it; it is not safe for
// concurrent mutation. Nil sections were not among the inputs.
type Account struct {
	// Label names the scenario (a directory's base name, or the first file's).
	Label string
	// Files lists each input used and its detected type, in input order.
	Files []FileInfo
	// Unusable lists the inputs left out (empty, corrupt, unsupported), in
	// input order, each with its reason.
	Unusable []Unusable
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
	// Scenario is the scenario's own figures from its end record (the
	// caller fills it, as gcstress's explain -diff does from summary.json
	// next to the profiles); nil when not known.
	Scenario *ScenarioCost

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
// read, plus metrics.json for MetricsGCCPU.
//
// A file that is empty, corrupt or of an unsupported type (an error wrapping
// ErrEmpty, ErrCorrupt or ErrUnsupported) is left out and listed in
// Account.Unusable with its reason; the account is built from every other
// file. Only when no file is usable is the result an error: those reasons,
// joined. A path that cannot be read at all is an error at once, and so is
// one that is not a regular file (ErrNotRegular: a FIFO is refused without
// blocking) or is over MaxFileBytes (ErrTooLarge).
func ExplainWith(opts Options, paths ...string) (*Account, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("explain: %w given", ErrNoProfiles)
	}
	acc := &Account{MetricsGCCPU: opts.MetricsGCCPU, maxCycles: opts.maxCycles()}
	files, err := acc.collect(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 && len(acc.Unusable) == 0 {
		return nil, fmt.Errorf("explain: %s: %w found", strings.Join(paths, ", "), ErrNoProfiles)
	}
	acc.Label = label(paths[0])

	var heapP, allocsP *loaded
	for _, f := range files {
		l, err := load(f)
		if err == nil {
			err = acc.analyze(l, opts, &heapP, &allocsP)
		}
		if err := acc.skip(f, err); err != nil {
			return nil, err
		}
	}
	if err := acc.analyzeHeap(heapP, allocsP, opts); err != nil {
		return nil, err
	}
	if len(acc.Files) == 0 {
		errs := make([]error, len(acc.Unusable))
		for i, u := range acc.Unusable {
			errs[i] = u.Err
		}
		return nil, errors.Join(errs...)
	}
	return acc, nil
}

// Unusable is an input left out of an account, and why. Err names the file
// and wraps ErrEmpty, ErrCorrupt or ErrUnsupported.
type Unusable struct {
	Path string
	Err  error
}

// skip records path as unusable when err is one of the file-content
// sentinels, and returns any other error unchanged.
func (a *Account) skip(path string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrEmpty) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported) {
		a.Unusable = append(a.Unusable, Unusable{Path: path, Err: err})
		return nil
	}
	return err
}

// collect expands paths into the files to read, reading metrics.json in
// directories (an unreadable one is recorded as unusable).
func (a *Account) collect(paths []string) ([]string, error) {
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
		found, metrics, err := scanDir(p)
		if err != nil {
			return nil, err
		}
		if metrics != "" {
			m, err := readMetricsFile(metrics)
			if err := a.skip(metrics, err); err != nil {
				return nil, err
			}
			if a.MetricsGCCPU == nil && m != nil {
				a.MetricsGCCPU = m
			}
		}
		files = append(files, found...)
	}
	return files, nil
}

// analyze adds one loaded file to the account; heap and allocs profiles are
// kept for analyzeHeap.
func (a *Account) analyze(l *loaded, opts Options, heapP, allocsP **loaded) error {
	var err error
	switch l.typ {
	case TypeCPU:
		if a.CPU != nil {
			return fmt.Errorf("explain: %s: a second CPU profile (first %s); explain one scenario at a time", l.path, a.CPU.File)
		}
		a.CPU, err = analyzeCPU(l.path, l.prof, opts)
	case TypeHeap:
		*heapP = l
	case TypeAllocs:
		*allocsP = l
	case TypeFgprof:
		a.Wall, err = analyzeWall(l.path, l.prof, opts)
	case TypeMutex, TypeBlock:
		var c *ContentionAccount
		if c, err = analyzeContention(l.path, l.typ, l.prof, opts); err == nil {
			a.Contention = append(a.Contention, c)
		}
	case TypeTrace:
		var t *TraceAccount
		if t, err = analyzeTrace(l.path, l.data, opts); err == nil {
			a.Traces = append(a.Traces, t)
		}
	}
	if err == nil {
		a.Files = append(a.Files, FileInfo{Path: l.path, Type: l.typ})
	}
	return err
}

// analyzeHeap fills Allocs (from the allocs profile, else the heap profile)
// and Heap (from the heap profile).
func (a *Account) analyzeHeap(heapP, allocsP *loaded, opts Options) error {
	var err error
	if allocsP != nil {
		if a.Allocs, err = a.allocsOf(allocsP, "alloc", opts); err != nil {
			return err
		}
	}
	if heapP == nil {
		return nil
	}
	if a.Allocs == nil {
		if a.Allocs, err = a.allocsOf(heapP, "alloc", opts); err != nil || a.Allocs == nil {
			return err
		}
	}
	a.Heap, err = a.allocsOf(heapP, "inuse", opts)
	return err
}

// allocsOf analyses the sample type ("alloc" or "inuse") of the profile p;
// an unusable profile (see skip) gives nil, and one that gives nil is
// dropped from Files.
func (a *Account) allocsOf(p *loaded, sample string, opts Options) (*AllocAccount, error) {
	x, err := analyzeAllocs(p.path, p.prof, sample, opts)
	if err := a.skip(p.path, err); err != nil {
		return nil, err
	}
	if x == nil {
		a.dropFile(p.path)
	}
	return x, nil
}

// dropFile removes path from Files once it has turned out unusable.
func (a *Account) dropFile(path string) {
	a.Files = slices.DeleteFunc(a.Files, func(f FileInfo) bool { return f.Path == path })
}

func label(p string) string {
	p = filepath.Clean(p)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		p = filepath.Dir(p)
	}
	return filepath.Base(p)
}

// scanDir lists the recognised files directly inside dir, sorted, and the
// path of its metrics.json ("" if none).
func scanDir(dir string) ([]string, string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", fmt.Errorf("explain: %w", err)
	}
	var out []string
	metrics := ""
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		p := filepath.Join(dir, n)
		if n == MetricsFile {
			metrics = p
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
	return out, metrics, nil
}

// readMetricsFile reads the GC CPU share, as gcmetrics defines it, of the
// window a Capture wrote.
func readMetricsFile(p string) (*float64, error) {
	b, err := inputfile.ReadFile(p, MaxMetricsBytes)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("explain: %s: %w: file is empty", p, ErrEmpty)
	}
	var m CaptureMetrics
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("explain: %s: %w: %v", p, ErrCorrupt, err)
	}
	v, ok := m.GCCPUShare()
	if !ok {
		return nil, nil
	}
	if v < 0 || v > 1 {
		return nil, fmt.Errorf("explain: %s: %w: GC CPU share %v is not a fraction from 0 to 1", p, ErrCorrupt, v)
	}
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

// load reads a file (a regular file of at most MaxFileBytes) and detects its
// type from its content.
func load(path string) (*loaded, error) {
	data, err := inputfile.ReadFile(path, MaxFileBytes)
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
		if looksDamaged(data) {
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

// looksDamaged reports whether data that did not parse starts like a
// profile or trace (so is damaged, typically truncated, rather than another
// format): a gzip stream or a prefix of its magic, a trace header or a
// prefix of it, or binary data that reads as profile.proto fields up to its
// end or to a field cut short.
func looksDamaged(data []byte) bool {
	gzipMagic := []byte{0x1f, 0x8b}
	switch {
	case bytes.HasPrefix(data, gzipMagic) || bytes.HasPrefix(gzipMagic, data):
		return true
	case bytes.HasPrefix(data, traceMagic) || (len(data) >= 2 && bytes.HasPrefix(traceMagic, data)):
		return true
	}
	return !isText(data) && looksProfileProto(data)
}

// isText reports whether data is UTF-8 without control characters other
// than tab, newline and carriage return.
func isText(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// profileWire is the protobuf wire type of each field of profile.proto's
// Profile message (field 13, comment, may also be packed: wire type 2).
var profileWire = map[uint64]uint64{1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 0, 8: 0, 9: 0, 10: 0, 11: 2, 12: 0, 13: 0, 14: 0, 15: 0}

// looksProfileProto reports whether data is a sequence of Profile fields,
// possibly cut short inside the last one (an uncompressed profile that was
// truncated).
func looksProfileProto(data []byte) bool {
	fields := 0
	for len(data) > 0 {
		tag, n := binary.Uvarint(data)
		if n <= 0 {
			return n == 0 && fields > 0
		}
		field, wire := tag>>3, tag&7
		want, ok := profileWire[field]
		if !ok || (wire != want && !(field == 13 && wire == 2)) {
			return false
		}
		data = data[n:]
		v, n := binary.Uvarint(data)
		if n <= 0 {
			return n == 0
		}
		data = data[n:]
		if wire == 2 {
			if v > uint64(len(data)) {
				return true
			}
			data = data[v:]
		}
		fields++
	}
	return fields > 0
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
