package offheapprobe

import (
	"errors"
	"strings"
	"testing"
)

const vmstatSample = `nr_free_pages 1234
pgfault 1000
pgmajfault 3
numa_hit 77
allocstall_normal 4
thp_fault_alloc 5
thp_fault_fallback 0
compact_stall 2
nr_dirty 9
`

func TestParseVmstat(t *testing.T) {
	got, err := ParseVmstat(strings.NewReader(vmstatSample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"nr_free_pages": 1234, "pgfault": 1000, "pgmajfault": 3, "numa_hit": 77, "thp_fault_alloc": 5, "thp_fault_fallback": 0, "compact_stall": 2, "allocstall_normal": 4}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
}

func TestParseVmstatHostile(t *testing.T) {
	cases := map[string]struct {
		in   string
		want error
	}{
		"no value":       {"pgfault\n", ErrMalformed},
		"two spaces":     {"pgfault  1\n", ErrMalformed},
		"negative":       {"pgfault -1\n", ErrMalformed},
		"overflow":       {"pgfault 99999999999999999999\n", ErrMalformed},
		"upper case":     {"PgFault 1\n", ErrMalformed},
		"binary":         {"pg\x00fault 1\n", ErrMalformed},
		"repeated":       {"pgfault 1\npgfault 2\n", ErrMalformed},
		"empty line":     {"pgfault 1\n\n", ErrMalformed},
		"long name":      {strings.Repeat("a", 65) + " 1\n", ErrMalformed},
		"long line":      {"pgfault " + strings.Repeat("1", maxLine+1) + "\n", ErrTooLarge},
		"too many lines": {manyLines(MaxVmstatEntries + 1), ErrTooLarge},
		"too many bytes": {strings.Repeat("x", MaxVmstatBytes+10), ErrTooLarge},
	}
	for name, c := range cases {
		if _, err := ParseVmstat(strings.NewReader(c.in)); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	if got, err := ParseVmstat(strings.NewReader("")); err != nil || len(got) != 0 {
		t.Errorf("empty input: %v, %v", got, err)
	}
}

func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("c")
		for j := i; j > 0; j /= 26 {
			b.WriteByte(byte('a' + j%26))
		}
		b.WriteString(" 1\n")
	}
	return b.String()
}

const smapsSample = `00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/probe
Size:                328 kB
Rss:                 300 kB
AnonHugePages:         0 kB
VmFlags: rd ex mr mw me dw
7f0000000000-7f0000400000 rw-p 00000000 00:00 0 
Size:               4096 kB
Rss:                4096 kB
Pss:                4096 kB
AnonHugePages:      4096 kB
THPeligible:    1
VmFlags: rd wr mr mw me ac hg
7f0000600000-7f0000800000 rw-p 00000000 00:00 0
Rss:                  12 kB
AnonHugePages:         0 kB
VmFlags: rd wr mr mw me ac nh
`

func TestParseSmaps(t *testing.T) {
	got, err := ParseSmaps(strings.NewReader(smapsSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{
		{Start: 0x400000, End: 0x452000, RssKB: 300, AnonHugeKB: 0},
		{Start: 0x7f0000000000, End: 0x7f0000400000, RssKB: 4096, AnonHugeKB: 4096, HugeAdvised: true},
		{Start: 0x7f0000600000, End: 0x7f0000800000, RssKB: 12, AnonHugeKB: 0, NoHuge: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseSmapsHostile(t *testing.T) {
	hdr := "7f0000000000-7f0000400000 rw-p 00000000 00:00 0\n"
	cases := map[string]struct {
		in   string
		want error
	}{
		"field first":     {"Rss: 4 kB\n", ErrMalformed},
		"bad range":       {"zz-7f rw-p 0 00:00 0\n", ErrMalformed},
		"reversed range":  {"2000-1000 rw-p 0 00:00 0\n", ErrMalformed},
		"empty range":     {"1000-1000 rw-p 0 00:00 0\n", ErrMalformed},
		"no dash":         {"10001000 rw-p 0 00:00 0\n", ErrMalformed},
		"rss unit":        {hdr + "Rss: 4 MB\n", ErrMalformed},
		"rss garbage":     {hdr + "Rss: x kB\n", ErrMalformed},
		"rss negative":    {hdr + "Rss: -4 kB\n", ErrMalformed},
		"rss repeated":    {hdr + "Rss: 4 kB\nRss: 4 kB\n", ErrMalformed},
		"huge no value":   {hdr + "AnonHugePages:\n", ErrMalformed},
		"long line":       {hdr + "VmFlags: " + strings.Repeat("hg ", maxLine) + "\n", ErrTooLarge},
		"too many bytes":  {strings.Repeat(hdr+"Size: 4 kB\n", MaxSmapsBytes/60+10), ErrTooLarge},
		"binary":          {"\x00\x01\x02\n", ErrMalformed},
		"too many ranges": {manyMappings(MaxMappings + 1), ErrTooLarge},
	}
	for name, c := range cases {
		if _, err := ParseSmaps(strings.NewReader(c.in)); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	got, err := ParseSmaps(strings.NewReader(hdr + "Unknown: what ever\n"))
	if err != nil || len(got) != 1 || got[0].RssKB != -1 || got[0].AnonHugeKB != -1 {
		t.Errorf("unknown fields only: %+v, %v; want one mapping with Rss and AnonHugePages unset (-1)", got, err)
	}
}

func manyMappings(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(hexAddr(uint64(i+1) << 12)[2:])
		b.WriteByte('-')
		b.WriteString(hexAddr(uint64(i+2) << 12)[2:])
		b.WriteString(" r\n")
	}
	return b.String()
}

func TestParseTHPChoice(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n":                       "madvise",
		"[always] madvise never":                         "always",
		"always defer [defer+madvise] madvise never":     "defer+madvise",
		"always within_size advise [never] deny force\n": "never",
	} {
		if got, err := ParseTHPChoice([]byte(in)); err != nil || got != want {
			t.Errorf("ParseTHPChoice(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "always madvise never", "[always] [never]", "[]", "[Always]", "[a b]", "[x\x00]"} {
		if _, err := ParseTHPChoice([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseTHPChoice(%q) err = %v, want ErrMalformed", in, err)
		}
	}
	if _, err := ParseTHPChoice([]byte(strings.Repeat("[a]", 2000))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge THP setting: err = %v, want ErrTooLarge", err)
	}
}

// FuzzParsers checks that no input makes a parser panic.
func FuzzParsers(f *testing.F) {
	f.Add([]byte(vmstatSample))
	f.Add([]byte(smapsSample))
	f.Add([]byte("always [madvise] never"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseVmstat(strings.NewReader(string(b)))
		_, _ = ParseSmaps(strings.NewReader(string(b)))
		_, _ = ParseTHPChoice(b)
	})
}

// TestReportedGaps: the free memory reported to the host between a
// process's fills is the next fill's start minus the previous fill's end,
// per process; a kernel without free page reporting gives none.
func TestReportedGaps(t *testing.T) {
	recs := []Record{
		{Proc: 0, Kind: KindArena, ReportedKiBStart: 1000, Vmstat: map[string]int64{"page_reporting_reported_kib": 10}},
		{Proc: 0, Kind: KindOffHeap, ReportedKiBStart: 3058, Vmstat: map[string]int64{"page_reporting_reported_kib": 0}},
		{Proc: 1, Kind: KindArena, ReportedKiBStart: 5000},
		{Proc: 1, Kind: KindOffHeap},
	}
	g := reportedGaps(recs)
	if _, ok := g[&recs[0]]; ok {
		t.Errorf("a process's first fill has a gap: %v", g[&recs[0]])
	}
	if got := g[&recs[1]]; got != 2048 {
		t.Errorf("gap before the offheap fill %d KiB, want 2048", got)
	}
	if _, ok := g[&recs[3]]; ok {
		t.Errorf("a fill without the counter has a gap")
	}
	rows := Summarize(recs[:2])
	if len(rows) != 1 || rows[0].ReportedGapMB != 2 {
		t.Errorf("rows %+v", rows)
	}
}
