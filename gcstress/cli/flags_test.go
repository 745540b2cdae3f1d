package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/results"
)

func TestParseFlagsDefault(t *testing.T) {
	c, err := ParseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Kinds, ",") != "heap,arena,offheap" || len(c.Values) != 4 || c.Values[3] != 10<<10 {
		t.Fatalf("default kinds/values: %v %v", c.Kinds, c.Values)
	}
	if c.Duration != gcstress.DefaultDuration || c.Window != time.Second || c.Format != "table" || c.Out != "" || c.Command != "gcstress" {
		t.Fatalf("defaults: %+v", c)
	}
	groups := map[string]int{}
	for _, s := range gcstress.Expand(c) {
		groups[s.Group]++
		switch {
		case s.Group == "failure" && (s.Backpressure || s.MemLimit != gcstress.DefaultFailMemLimit || s.FlushBW != gcstress.DefaultFailFlushBW):
			t.Fatalf("failure scenario %+v", s)
		case s.Group == "stall" && (!s.Backpressure || s.Kind != "heap" || s.LatencyEvery != 1):
			t.Fatalf("stall scenario %+v", s)
		case s.Group == "matrix" && (!s.Backpressure || s.MemLimit != 0):
			t.Fatalf("matrix scenario %+v", s)
		}
	}
	if groups["matrix"] != 12 || groups["failure"] != 3 || groups["stall"] != 1 {
		t.Fatalf("default matrix: %v", groups)
	}
}

func TestParseFlagsKeys(t *testing.T) {
	c, err := ParseFlags([]string{"-kinds", "arena", "-values", "10", "-keys", "1e9", "-scenario", "matrix"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sc := gcstress.Expand(c)
	if len(sc) != 1 || sc[0].Keys != 1_000_000_000 || sc[0].Duration != 0 || sc[0].StallTimeout != gcstress.DefaultStallTimeout {
		t.Fatalf("-keys 1e9: %+v", sc)
	}
	// Without a run-time cap the watchdog is on, and -stall-timeout sets it.
	c, err = ParseFlags([]string{"-kinds", "arena", "-values", "10", "-keys", "1e9", "-scenario", "matrix", "-stall-timeout", "2m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sc = gcstress.Expand(c); sc[0].StallTimeout != 2*time.Minute {
		t.Fatalf("-stall-timeout 2m: %v", sc[0].StallTimeout)
	}
	c, err = ParseFlags([]string{"-values", "10,1KB", "-keys", "10M,2M", "-duration", "5s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys[0] != 10_000_000 || c.Keys[1] != 2_000_000 || c.Duration != 5*time.Second {
		t.Fatalf("keys %v duration %v", c.Keys, c.Duration)
	} // -duration without -keys: duration first, keys unbounded.
	c, err = ParseFlags([]string{"-kinds", "arena", "-values", "10", "-duration", "10s", "-scenario", "matrix"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sc = gcstress.Expand(c); len(sc) != 1 || !sc[0].DurationFirst() || sc[0].Duration != 10*time.Second || sc[0].MinRun != 0 {
		t.Fatalf("-duration 10s alone: %+v", sc)
	}
	// The defaults: key-bounded, with the least run time.
	c, err = ParseFlags([]string{"-kinds", "arena", "-values", "10", "-scenario", "matrix"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sc = gcstress.Expand(c); sc[0].DurationFirst() || sc[0].MinRun != results.MinRunFor(c.Thresholds, c.Window) {
		t.Fatalf("defaults: %+v", sc[0])
	}
}

// TestFlagsReachFailureAndStall: -memlimit, -flush-bw and -latency-every,
// when given, also set the failure and stall scenarios' values; -quick's
// defaults yield to flags given explicitly.
func TestFlagsReachFailureAndStall(t *testing.T) {
	c, err := ParseFlags([]string{"-quick", "-memlimit", "200MB", "-flush-bw", "1MB", "-latency-every", "8", "-memstore", "2MB"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Memstore != 2<<20 || c.Duration != 3*time.Second || c.Keys[0] != 200_000 {
		t.Fatalf("quick: %+v", c)
	}
	for _, s := range gcstress.Expand(c) {
		if s.Group != "matrix" && (s.MemLimit != 200<<20 || s.FlushBW != 1<<20 || s.LatencyEvery != 8) {
			t.Fatalf("%s: memlimit %d flush %d latency-every %d", s.Name, s.MemLimit, s.FlushBW, s.LatencyEvery)
		}
	}
}

// TestCollapseSamplingYieldsToFlags: by default the collapse scenarios
// sample every 200 ms after a 1 s warm-up of their own; -window and
// -warmup, each when given, set theirs as every other scenario's.
func TestCollapseSamplingYieldsToFlags(t *testing.T) {
	for _, tc := range []struct {
		args           []string
		window, warmup time.Duration
	}{
		{nil, 200 * time.Millisecond, time.Second},
		{[]string{"-window", "500ms"}, 500 * time.Millisecond, time.Second},
		{[]string{"-warmup", "3s"}, 200 * time.Millisecond, 3 * time.Second},
		{[]string{"-window", "2s", "-warmup", "2s"}, 2 * time.Second, 2 * time.Second},
		{[]string{"-window", "0"}, 0, time.Second},
		{[]string{"-quick"}, 200 * time.Millisecond, time.Second},
	} {
		c, err := ParseFlags(append([]string{"-scenario", "collapse,failure"}, tc.args...), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range gcstress.Expand(c) {
			th := s.EffectiveThresholds(c.Thresholds)
			if s.Group != gcstress.SetCollapse {
				if s.Window != c.Window || th.Warmup != c.Thresholds.Warmup {
					t.Fatalf("%v: %s: window %v warm-up %v", tc.args, s.Name, s.Window, th.Warmup)
				}
				continue
			}
			if s.Window != tc.window || th.Warmup != tc.warmup || s.Thresholds.Warmup != tc.warmup {
				t.Fatalf("%v: %s: window %v warm-up %v (thresholds' %v), want %v and %v",
					tc.args, s.Name, s.Window, th.Warmup, s.Thresholds.Warmup, tc.window, tc.warmup)
			}
		}
	}
}

// TestParseFlagsErrorsNameTheFlag: each bad value is a usage error (exit 2)
// that names the flag, before any work.
func TestParseFlagsErrorsNameTheFlag(t *testing.T) {
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"-values", "0"}, "-values"},
		{[]string{"-values", "10,abc"}, "-values"},
		{[]string{"-kinds", "heap,nosuch"}, "-kinds"},
		{[]string{"-memlimit", "16MB"}, "-memlimit"},
		{[]string{"-fail-memlimit", "16MB"}, "-fail-memlimit"},
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
		{[]string{"stray"}, "stray"},
		// Careless values.
		{[]string{"-fail-duration", "-1s"}, "-fail-duration"},
		{[]string{"-fail-duration", "1ns"}, "-fail-duration"},    // would remove the stall's cap
		{[]string{"-fail-duration", "1500us"}, "-fail-duration"}, // half is under 1ms
		{[]string{"-duration", "1ns"}, "-duration"},
		{[]string{"-stall-timeout", "-1s"}, "-stall-timeout"},
		{[]string{"-memstore", "4000000T", "-regions", "3"}, "-memstore"}, // overflows
		{[]string{"-kinds", "arena,arena"}, "-kinds"},
		{[]string{"-values", "1KB,1024"}, "-values"},
	}
	for _, tc := range cases {
		_, err := ParseFlags(tc.args, io.Discard)
		if !errors.Is(err, gcstress.ErrUsage) || ExitCode(err) != ExitUsage {
			t.Errorf("%v: err %v, want a usage error", tc.args, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%v: %q does not name %s", tc.args, err, tc.flag)
		}
	}
	// An unknown kind lists the known ones.
	if _, err := ParseFlags([]string{"-kinds", "nosuch"}, io.Discard); err == nil || !strings.Contains(err.Error(), "arena,btree,heap,offheap") {
		t.Errorf("-kinds nosuch: %v, want the known kinds listed", err)
	}
	// The boundaries stay accepted.
	for _, args := range [][]string{{"-fail-duration", "2ms"}, {"-fail-duration", "0"}, {"-duration", "1ms"}, {"-memstore", "1GB", "-regions", "1024", "-rss-cap", "off", "-scenario", "matrix"}} {
		if _, err := ParseFlags(args, io.Discard); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

func TestHelp(t *testing.T) {
	var stderr syncBuf
	_, err := ParseFlags([]string{"-h"}, &stderr)
	if !errors.Is(err, flag.ErrHelp) || ExitCode(err) != ExitOK {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range []string{"usage: gcstress", "explain", "gcstress failure", "-memstore", "-thresholds"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestStreamWriteFailureExits1: a failed write of a stream (gcstress's
// ErrStream, naming the file) is a tool failure: exit 1, not usage.
func TestStreamWriteFailureExits1(t *testing.T) {
	err := fmt.Errorf("%w: write /out/samples.jsonl: no space left on device", gcstress.ErrStream)
	if ExitCode(err) != ExitFailure {
		t.Fatalf("exit %d, want %d", ExitCode(err), ExitFailure)
	}
}

// A refused flag value is one line naming the flag, the value and an example
// of a good one (not the 100-line usage text), and exit 2; -h still prints
// the usage text.
func TestFlagErrorIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-duration", "10"}, "gcstress: usage: -duration 10: want a duration such as 30s (gcstress -h lists every flag)\n"},
		{[]string{"-regions", "x"}, "gcstress: usage: -regions x: want an integer such as 4 (gcstress -h lists every flag)\n"},
		{[]string{"-quick=maybe"}, "gcstress: usage: -quick maybe: want true or false (gcstress -h lists every flag)\n"},
		{[]string{"-nosuch"}, "gcstress: usage: flag provided but not defined: -nosuch (gcstress -h lists every flag)\n"},
	} {
		var stdout, stderr strings.Builder
		if code := Main(context.Background(), c.args, &stdout, &stderr); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, ExitUsage)
		}
		if stderr.String() != c.want || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q, want %q (stdout %q)", c.args, stderr.String(), c.want, stdout.String())
		}
	}
	var stderr strings.Builder
	if code := Main(context.Background(), []string{"-memstore", "12QB"}, io.Discard, &stderr); code != ExitUsage ||
		strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "want a size such as 64MB") {
		t.Errorf("-memstore 12QB: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := Main(context.Background(), []string{"-h"}, io.Discard, &stderr); code != ExitOK || !strings.Contains(stderr.String(), "-duration") {
		t.Errorf("-h: exit %d, want the usage text; stderr %q", code, stderr.String())
	}
}

// TestHelpHasNoPanic: -h prints every flag with its default and no
// "panic calling String method" line (the flag package calls String on a
// zero value of each flag's type to tell a default from a zero).
func TestHelpHasNoPanic(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := Main(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 && code != ExitUsage {
		t.Fatalf("-h: exit %d", code)
	}
	out := stdout.String() + stderr.String()
	if strings.Contains(out, "panic") || !strings.Contains(out, "-duration") || !strings.Contains(out, "-build-envs") {
		t.Errorf("-h output:\n%s", out)
	}
}

// TestCapAboveTheMachine: a -container or -rss-cap above this machine's
// memory (or its cgroup's limit) is one usage line naming the flag and
// the figure.
func TestCapAboveTheMachine(t *testing.T) {
	m := gcstress.MachineMemory()
	if m.Bytes <= 0 {
		t.Skip("no memory reading on this system")
	}
	over := strconv.FormatInt((m.Bytes*2)>>20, 10) + "MB"
	for _, args := range [][]string{
		{"-scenario", "frontier", "-container", over},
		{"-scenario", "matrix", "-rss-cap", over},
	} {
		var stderr strings.Builder
		code := Main(context.Background(), args, io.Discard, &stderr)
		if code != ExitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), args[2]) ||
			!strings.Contains(stderr.String(), m.String()) {
			t.Errorf("%v: exit %d, stderr %q: want one usage line naming %s and %q", args, code, stderr.String(), args[2], m)
		}
	}
}
