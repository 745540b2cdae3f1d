package oskit

import (
	"os"
	"runtime"
	"testing"
)

// fixture returns testdata/name, a file in /proc's format.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParse: each parser reads its field from a /proc file, counting
// stat's fields after the last ')' of a command that holds one, and refuses
// a file without the field rather than guess.
func TestParse(t *testing.T) {
	faults := func(b []byte) (int64, bool) { n, ok := ParseMinorFaults(b); return int64(n), ok }
	for _, tc := range []struct {
		name  string
		parse func([]byte) (int64, bool)
		in    []byte
		want  int64
		ok    bool
	}{
		{"stat", faults, fixture(t, "stat"), 122, true},
		{"stat cut short", faults, []byte("1234 (short) R 1 2"), 0, false},
		{"stat without a command", faults, []byte("1234 R 1 2 3 4 5 6 7 8"), 0, false},
		{"stat negative", faults, []byte("1234 (x) R 1 2 3 4 5 6 -1 8"), 0, false},
		{"status", ParseRSS, fixture(t, "status"), 2048 << 10, true},
		{"status without VmRSS", ParseRSS, []byte("Name:\tx\n"), 0, false},
		{"status bad VmRSS", ParseRSS, []byte("VmRSS:\tlots kB\n"), 0, false},
	} {
		if got, ok := tc.parse(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// On Linux both files exist and hold a live process's figures; elsewhere
// the readers say so.
func TestSelf(t *testing.T) {
	_, faultsOK := MinorFaults()
	rss, rssOK := RSS()
	if runtime.GOOS != "linux" {
		if faultsOK || rssOK {
			t.Error("ok without /proc")
		}
		return
	}
	if !faultsOK || !rssOK || rss <= 0 {
		t.Errorf("MinorFaults ok %v, RSS %d ok %v; want both, RSS positive", faultsOK, rss, rssOK)
	}
}
