package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestRunFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-base-bin", "a", "-head-bin", "b", "-bench", "."},
		{"-base-bin", "a", "-head-bin", "b", "-bench", ".", "-site", "arena", "-pct", "0"},
		{"-base-bin", "a", "-head-bin", "b", "-bench", ".", "-site", "arena", "extra"},
	} {
		if err := run(context.Background(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("%q: want an error", args)
		}
	}
}

// Limits are checked before anything runs: the binaries named here do not
// exist, so only the flag check can produce these messages.
func TestRunFlagLimits(t *testing.T) {
	base := []string{"-base-bin", "a", "-head-bin", "b", "-bench", ".", "-site", "arena"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"-benchtime", "0x"}, "-benchtime"},
		{[]string{"-benchtime", "soon"}, "-benchtime"},
		{[]string{"-rounds", "1000"}, "-rounds"},
		{[]string{"-verify", "101"}, "-verify"},
		{[]string{"-passes", "21"}, "-passes"},
	} {
		args := append(append([]string{}, base...), tc.extra...)
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error naming %s", tc.extra, err, tc.want)
		}
	}
}

func TestMeasureFailingBinary(t *testing.T) {
	r := runner{baseBin: "/nonexistent/slowcal-test-binary", headBin: "/nonexistent", bench: ".", site: "arena", benchtime: "1x"}
	if _, err := r.measure(context.Background(), untagged); err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Errorf("got %v", err)
	}
}

func TestNsPerSpinPositive(t *testing.T) {
	if v := nsPerSpin(); !(v > 0) {
		t.Errorf("nsPerSpin = %v", v)
	}
}
