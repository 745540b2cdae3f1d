package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/internal/proto"
)

// The mix flags: w by default (nothing changes), a reading mix gets the
// default preload, mix d reads the latest, and bad values are usage
// errors (exit 2) naming the flag.
func TestMixFlags(t *testing.T) {
	c, err := ParseFlags(nil, io.Discard)
	if err != nil || c.Mix != "w" || c.Preload != 0 {
		t.Fatalf("default: mix %q preload %d err %v", c.Mix, c.Preload, err)
	}
	c, err = ParseFlags([]string{"-mix", "d", "-kinds", "heap", "-scenario", "matrix"}, io.Discard)
	if err != nil || c.Preload != proto.DefaultPreload {
		t.Fatalf("-mix d: preload %d err %v", c.Preload, err)
	}
	for _, s := range gcstress.Expand(c) {
		if s.KeyDist != "latest" || s.Mix != "d" || !strings.HasSuffix(s.Name, "/d") {
			t.Errorf("-mix d scenario %s: keydist %q", s.Name, s.KeyDist)
		}
	}
	for _, args := range [][]string{
		{"-mix", "c", "-preload", "0"},
		{"-mix", "b", "-zipf-theta", "1"},
		{"-mix", "b", "-zipf-theta", "0"},
		{"-mix", "b", "-keydist", "hot"},
		{"-keydist", "hot"},    // a typo is refused with the write-only load too
		{"-zipf-theta", "1.5"}, // likewise
		{"-mix", "z"},
		{"-mix", "a", "-preload", "lots"},
	} {
		if _, err := ParseFlags(args, io.Discard); !errors.Is(err, gcstress.ErrUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestPreloadNeedsAReadingMix: -preload with the write-only load (-mix w,
// the default) is one usage line naming -preload and -mix.
func TestPreloadNeedsAReadingMix(t *testing.T) {
	for _, args := range [][]string{{"-mix", "w", "-preload", "5"}, {"-preload", "100K"}} {
		var stderr strings.Builder
		code := Main(context.Background(), args, io.Discard, &stderr)
		if code != ExitUsage || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "-preload: ") ||
			!strings.Contains(stderr.String(), "-mix w") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	if _, err := ParseFlags([]string{"-mix", "b", "-preload", "5", "-kinds", "heap", "-scenario", "matrix"}, io.Discard); err != nil {
		t.Errorf("-mix b -preload 5: %v", err)
	}
}

// TestTraceFlag: -trace=false turns the trace off for every scenario, the
// write-only ones included; the default traces; -read-trace is a synonym
// for mixes, hidden from -h and noted as deprecated.
func TestTraceFlag(t *testing.T) {
	c, err := ParseFlags([]string{"matrix", "-trace=false", "-kinds", "heap", "-values", "100"}, io.Discard)
	if err != nil || !c.NoTrace {
		t.Fatalf("-trace=false: %v, NoTrace %v", err, c.NoTrace)
	}
	for _, s := range gcstress.Expand(c) {
		if !s.NoTrace {
			t.Errorf("%s: traced under -trace=false", s.Name)
		}
	}
	c, err = ParseFlags([]string{"matrix", "-kinds", "heap", "-values", "100"}, io.Discard)
	if err != nil || c.NoTrace {
		t.Fatalf("default: %v, NoTrace %v", err, c.NoTrace)
	}
	var stderr syncBuf
	c, err = ParseFlags([]string{"matrix", "-mix", "b", "-read-trace=false", "-kinds", "heap", "-values", "100"}, &stderr)
	if err != nil || c.ReadTrace || !strings.Contains(stderr.String(), "-read-trace (use -trace)") {
		t.Fatalf("-read-trace=false: %v, ReadTrace %v, stderr %q", err, c.ReadTrace, stderr.String())
	}
	var help syncBuf
	if _, err := ParseFlags([]string{"matrix", "-h"}, &help); !strings.Contains(help.String(), "-trace") || strings.Contains(help.String(), "-read-trace") {
		t.Errorf("matrix -h (%v) lists -trace and not -read-trace? %q", err, help.String())
	}
}
