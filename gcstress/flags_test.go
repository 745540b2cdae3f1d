package gcstress

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFlagsDefault(t *testing.T) {
	out := t.TempDir()
	c, err := ParseFlags([]string{"-out", out}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Kinds, ",") != "heap,arena,offheap" || len(c.Values) != 4 || c.Values[3] != 10<<10 {
		t.Fatalf("default kinds/values: %v %v", c.Kinds, c.Values)
	}
	if c.Duration != DefaultDuration || c.Window != time.Second || c.Format != "table" {
		t.Fatalf("defaults: %+v", c)
	}
	sc := Expand(c)
	var groups = map[string]int{}
	for _, s := range sc {
		groups[s.Group]++
		if s.Dir == "" || !strings.HasPrefix(s.Dir, out) {
			t.Fatalf("scenario dir %q", s.Dir)
		}
	}
	if groups["matrix"] != 12 || groups["failure"] != 3 || groups["stall"] != 1 {
		t.Fatalf("default matrix: %v", groups)
	}
	for _, s := range sc {
		switch s.Group {
		case "failure":
			if s.Backpressure || s.MemLimit != DefaultFailMemLimit || s.FlushBW != DefaultFailFlushBW {
				t.Fatalf("failure scenario %+v", s)
			}
		case "stall":
			if !s.Backpressure || s.Kind != "heap" {
				t.Fatalf("stall scenario %+v", s)
			}
		case "matrix":
			if !s.Backpressure || s.MemLimit != 0 {
				t.Fatalf("matrix scenario %+v", s)
			}
		}
	}
}

func TestParseFlagsKeys(t *testing.T) {
	c, err := ParseFlags([]string{"-out", t.TempDir(), "-kinds", "arena", "-values", "10", "-keys", "1e9", "-scenario", "matrix"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sc := Expand(c)
	if len(sc) != 1 || sc[0].Keys != 1_000_000_000 || sc[0].Duration != 0 {
		t.Fatalf("-keys 1e9: %+v", sc)
	}
	c, err = ParseFlags([]string{"-out", t.TempDir(), "-values", "10,1KB", "-keys", "10M,2M", "-duration", "5s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys[0] != 10_000_000 || c.Keys[1] != 2_000_000 || c.Duration != 5*time.Second {
		t.Fatalf("keys %v duration %v", c.Keys, c.Duration)
	}
}

func TestParseFlagsErrorsNameTheFlag(t *testing.T) {
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join(ro, "out")
	if os.Getuid() == 0 {
		// root writes anywhere: use a path below a regular file instead.
		f := filepath.Join(t.TempDir(), "file")
		os.WriteFile(f, nil, 0o644)
		unwritable = filepath.Join(f, "out")
	}
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"-values", "0"}, "-values"},
		{[]string{"-values", "10,abc"}, "-values"},
		{[]string{"-kinds", "heap,nosuch"}, "-kinds"},
		{[]string{"-memlimit", "16MB"}, "-memlimit"},
		{[]string{"-fail-memlimit", "16MB"}, "-fail-memlimit"},
		{[]string{"-out", unwritable}, "-out"},
		{[]string{"-format", "xml"}, "-format"},
		{[]string{"-keys", "0"}, "-keys"},
		{[]string{"-keys", "1,2,3"}, "-keys"},
		{[]string{"-writers", "0"}, "-writers"},
		{[]string{"-path", "carrier-pigeon"}, "-path"},
		{[]string{"-backpressure", "maybe"}, "-backpressure"},
		{[]string{"-scenario", "nope"}, "-scenario"},
		{[]string{"-profile", "cpu,nope"}, "-profile"},
		{[]string{"-degraded-gc", "120"}, "-degraded-gc"},
		{[]string{"-rss-cap", "1MB"}, "-rss-cap"},
		{[]string{"-nosuchflag"}, "nosuchflag"},
	}
	for _, tc := range cases {
		args := tc.args
		if tc.flag != "-out" {
			args = append([]string{"-out", t.TempDir()}, args...)
		}
		_, err := ParseFlags(args, io.Discard)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: err %v, want ErrUsage", tc.args, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%v: %q does not name %s", tc.args, err, tc.flag)
		}
		if ExitCode(err) != 2 {
			t.Errorf("%v: exit code %d, want 2", tc.args, ExitCode(err))
		}
	}
	if _, err := ParseFlags([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) || ExitCode(err) != 0 {
		t.Errorf("-h: %v", err)
	}
}

func TestQuickShrinks(t *testing.T) {
	c, err := ParseFlags([]string{"-out", t.TempDir(), "-quick", "-memstore", "2MB"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Memstore != 2<<20 || c.Duration != 3*time.Second || c.Keys[0] != 200_000 {
		t.Fatalf("quick: %+v", c)
	}
}
