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
