package compare

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
	"golang.org/x/perf/benchfmt"
)

// run is a scenario run that ended normally, with figures.
func run(group, kind string, value int64, repeat int, mbps, objs float64) results.Result {
	e := &results.Sample{Type: results.SampleEnd, Keys: 20_000, MBps: mbps, PauseP99us: 350, Reason: results.StopKeys}
	e.GCCPUNsPerPut, e.ObjectsPerEntry, e.Entries = 412, objs, 20_000
	name := kind + "/" + "100B"
	if group != results.SetMatrix {
		name = group + "/" + kind
	}
	return results.Result{Scenario: results.Scenario{Name: name, Group: group, Kind: kind, Value: value, Repeat: repeat}, End: e}
}

// fixture is a run of two rounds with one of every kind of result.
func fixture() *results.Summary {
	sum := &results.Summary{GOOS: "linux", GOARCH: "amd64", CPUModel: "test\nCPU\x1b[31m", GoVersion: "go1.26.0", Commit: "0123abcd"}
	for r := 1; r <= 2; r++ {
		sum.Results = append(sum.Results, run(results.SetMatrix, "heap", 100, r, 41.5+float64(r), 2.01), run(results.SetMatrix, "arena", 100, r, 80, 0.004))
		died := run(results.SetFailure, "heap", 10, r, 1, 3)
		died.End.Reason = results.StopRSSCap
		stopped := run(results.SetFailure, "arena", 10, r, 2, 0.01)
		stopped.Stopped = results.StopFailed
		step := run(results.SetCapacity, "heap", 100, r, 20, 2)
		noEnd := results.Result{Scenario: results.Scenario{Name: "stall/heap", Group: results.SetStall, Kind: "heap", Value: 10, Repeat: r}}
		noFootprint := run(results.SetCollapse, "heap", 10, r, math.NaN(), 0)
		noFootprint.End.Entries = 0
		sum.Results = append(sum.Results, died, stopped, step, noEnd, noFootprint)
		sum.Capacity = append(sum.Capacity, results.Capacity{Kind: "heap", Value: 100, Repeat: r, SustainableMBps: 27.5})
	}
	return sum
}

func write(t *testing.T, sum *results.Summary) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, sum); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteGolden: the file's bytes are a contract.
func TestWriteGolden(t *testing.T) {
	testkit.CheckGolden(t, filepath.Join("testdata", "bench.golden.txt"), write(t, fixture()))
}

// TestLinesOnlyNormalRuns: a line per run that ended normally (every
// repeat), none for a failed, stopped or end-less run or a capacity step;
// a figure that is not a finite non-negative number is left off; a
// capacity search has its sustainable-MB/s line.
func TestLinesOnlyNormalRuns(t *testing.T) {
	var got []string
	for _, l := range Lines(fixture()) {
		var us []string
		for _, v := range l.Values {
			us = append(us, string(v.Unit))
		}
		got = append(got, l.Key.String()+" "+strings.Join(us, ","))
	}
	want := []string{
		"matrix/heap/100B MB/s,gc-cpu-ns/put,objects/entry,pause-p99-ns",
		"matrix/arena/100B MB/s,gc-cpu-ns/put,objects/entry,pause-p99-ns",
		"collapse/heap/10B gc-cpu-ns/put,pause-p99-ns",
		"matrix/heap/100B MB/s,gc-cpu-ns/put,objects/entry,pause-p99-ns",
		"matrix/arena/100B MB/s,gc-cpu-ns/put,objects/entry,pause-p99-ns",
		"collapse/heap/10B gc-cpu-ns/put,pause-p99-ns",
		"capacity/heap/100B sustainable-MB/s",
		"capacity/heap/100B sustainable-MB/s",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRoundTrip: what Write writes, Read reads back: every value of every
// line, by scenario and unit, and the configuration.
func TestRoundTrip(t *testing.T) {
	sum := fixture()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, write(t, sum), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Key]map[Unit][]float64{}
	for _, l := range Lines(sum) {
		if want[l.Key] == nil {
			want[l.Key] = map[Unit][]float64{}
		}
		for _, v := range l.Values {
			want[l.Key][v.Unit] = append(want[l.Key][v.Unit], v.Value)
		}
	}
	n := 0
	for k, us := range want {
		for u, vs := range us {
			s := f.Find(k, u)
			if s == nil || !slices.Equal(s.Values, vs) {
				t.Errorf("%v %s: read %+v, wrote %v", k, u, s, vs)
			}
			n++
		}
	}
	if len(f.Series) != n {
		t.Errorf("read %d series, wrote %d", len(f.Series), n)
	}
	if f.Config["cpu"] != "test CPU [31m" || f.Config[CountKey] != "2" || f.Config["commit"] != "0123abcd" {
		t.Errorf("config %v", f.Config)
	}
}

// TestBenchfmtReads: benchstat's reader (x/perf benchfmt) reads bench.txt
// without a syntax error, finds every result line, and takes each unit's
// direction from the file's metadata.
func TestBenchfmtReads(t *testing.T) {
	sum := fixture()
	r := benchfmt.NewReader(bytes.NewReader(write(t, sum)), FileName)
	results := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("syntax error: %v", rec)
		case *benchfmt.Result:
			results++
			if !strings.HasPrefix(string(rec.Name), strings.TrimPrefix(Prefix, "Benchmark")+"/set=") || rec.Iters < 1 {
				t.Errorf("result %s x %d", rec.Name, rec.Iters)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if want := len(Lines(sum)); results != want {
		t.Errorf("benchfmt read %d results, want %d", results, want)
	}
	for _, u := range Units() {
		if optionalUnit(u) {
			continue // declared only where a line holds it (readers_test.go, mmu_test.go)
		}
		if got := r.Units().GetBetter(string(u)); got != int(u.Better()) {
			t.Errorf("unit %s: benchfmt says better %d, want %d", u, got, u.Better())
		}
	}
}

// TestReadHostile: limits are checked before the input is taken in, and
// anything that is not a bench.txt is refused, naming the file.
func TestReadHostile(t *testing.T) {
	dir := t.TempDir()
	good := "BenchmarkGCStress/set=matrix/kind=heap/value=100 \t1\t2 MB/s\n"
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		name, text string
		want       error
	}{
		{"long-line", good + strings.Repeat("x", MaxLineBytes+1) + "\n", ErrTooLarge},
		{"garbage", "\x00\x01\x02 not a benchmark\n", ErrBadFile},
		{"empty", "", ErrBadFile},
		{"units-only", "Unit MB/s better=higher\n", ErrBadFile},
		{"foreign-name", "BenchmarkOther/x=1 \t1\t2 MB/s\n", ErrBadFile},
		{"bad-value", "BenchmarkGCStress/set=matrix/kind=heap/value=-1 \t1\t2 MB/s\n", ErrBadFile},
		{"kind-with-markup", "BenchmarkGCStress/set=matrix/kind=<b>/value=1 \t1\t2 MB/s\n", ErrBadFile},
		{"negative", "BenchmarkGCStress/set=matrix/kind=heap/value=100 \t1\t-2 MB/s\n", ErrBadFile},
		{"huge", "", ErrTooLarge},
	} {
		path := filepath.Join(dir, tc.name)
		if tc.name != "huge" {
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Read(path)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %v naming the file", tc.name, err, tc.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "nosuch")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestNames: Name and ParseName are inverse; other names are refused.
func TestNames(t *testing.T) {
	for _, k := range []Key{{"matrix", "heap", 100, ""}, {"failure", "my.store_2-x", 10, ""}, {"capacity", "arena", 10240, ""}, {"matrix", "arena", 100, "classic"}} {
		got, err := ParseName(k.Name())
		if err != nil || got != k {
			t.Errorf("%v: ParseName(%q) = %v, %v", k, k.Name(), got, err)
		}
	}
	if got := (Key{"matrix", "heap", 1024, "classic"}).String(); got != "matrix/heap/1KB/env=classic" {
		t.Errorf("String %q", got)
	}
	if got := (Key{"matrix", "heap", 1024, ""}).String(); got != "matrix/heap/1KB" {
		t.Errorf("String %q", got)
	}
	for _, n := range []string{"", "BenchmarkGCStress", "BenchmarkGCStress/set=matrix/kind=heap", "BenchmarkGCStress/kind=heap/set=matrix/value=1",
		"BenchmarkGCStress/set=matrix/kind=heap/value=1/extra=1", "BenchmarkGCStress/set=matrix/kind=heap/value=1/env=Classic",
		"BenchmarkGCStress/set=matrix/kind=heap/value=1/env=", "BenchmarkGCStress/set=matrix/kind=heap/value=1/env=a/x=1", "BenchmarkGCStress/set=Matrix/kind=heap/value=1",
		"BenchmarkGCStress/set=matrix/kind=/value=1", "BenchmarkGCStress/set=matrix/kind=heap/value=1e3"} {
		if _, err := ParseName(n); !errors.Is(err, ErrBadFile) {
			t.Errorf("ParseName(%q): %v", n, err)
		}
	}
}

// TestUnits: every unit has a direction, and the gated ones are as the
// command documents them.
func TestUnits(t *testing.T) {
	want := map[Unit]Direction{MBps: Higher, SustainableMBps: Higher, GCCPUNsPerPut: Lower, ObjectsPerEntry: Lower, PauseP99Ns: Lower}
	for _, u := range Units() {
		if mixedUnit(u) {
			want[u] = Lower // latencies (readers.go)
		}
	}
	for _, u := range []Unit{MMU1ms, MMU10ms, MMU100ms} {
		want[u] = Higher // utilization (mmu.go)
	}
	for _, u := range []Unit{AssistShareSlowPct, ReadAssistShareSlowPct} {
		want[u] = Lower
	}
	for _, u := range Units() {
		if u.Better() != want[u] {
			t.Errorf("%s: %v", u, u.Better())
		}
		delete(want, u)
	}
	if len(want) > 0 || Unit("ns/op").Better() != Unknown {
		t.Errorf("units missing: %v", want)
	}
}

// TestUnitFloors: every unit of bench.txt has a positive absolute floor in
// the registry; objects/entry's is above the off-heap engines' figures
// (0.001 to 0.005) and below one object per entry.
func TestUnitFloors(t *testing.T) {
	for _, u := range Units() {
		if f := u.Floor(); !(f > 0) {
			t.Errorf("%s: floor %v", u, f)
		}
	}
	if f := ObjectsPerEntry.Floor(); !(f > 0.005 && f < 1) {
		t.Errorf("objects/entry floor %v", f)
	}
	if f := Unit("ns/op").Floor(); f != 0 {
		t.Errorf("ns/op floor %v", f)
	}
}
