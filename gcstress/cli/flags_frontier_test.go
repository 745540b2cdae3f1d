package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress"
)

// TestFrontierFlags: -scenario frontier takes the default grid, -gogc and
// -memlimit-frac lists replace it, and one -gogc value still sets every
// child's GOGC for the other scenarios.
func TestFrontierFlags(t *testing.T) {
	c, err := ParseFlags([]string{"-scenario", "frontier", "-container", "512MiB"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	f := c.Frontier
	if f.Container != 512<<20 || !slices.Equal(f.GOGC, []int{50, 100, 200, 400, -1}) || !slices.Equal(f.MemLimitFracs, []float64{0, 0.5, 0.7, 0.9}) ||
		f.Headroom != 0.1 || f.PointDuration != gcstress.DefaultFrontierPoint || f.ConfirmDuration <= f.PointDuration {
		t.Errorf("defaults %+v", f)
	}
	c, err = ParseFlags([]string{"-scenario", "frontier", "-container", "1GB", "-gogc", "100,off", "-memlimit-frac", "none,75%", "-headroom", "0.2"}, io.Discard)
	if err != nil || !slices.Equal(c.Frontier.GOGC, []int{100, -1}) || !slices.Equal(c.Frontier.MemLimitFracs, []float64{0, 0.75}) || c.Frontier.Headroom != 0.2 {
		t.Errorf("lists: %+v %v", c.Frontier, err)
	}
	if c, err = ParseFlags([]string{"-scenario", "frontier", "-memlimit-frac", "none"}, io.Discard); err != nil || c.Frontier.Container != 0 {
		t.Errorf("no limit, no container: %v", err)
	}
	for arg, want := range map[string]int{"200": 200, "off": -1, "-1": -1} {
		if c, err := ParseFlags([]string{"-scenario", "matrix", "-gogc", arg}, io.Discard); err != nil || c.GOGC != want {
			t.Errorf("-gogc %s: GOGC %d, %v", arg, c.GOGC, err)
		}
	}
	if c, _ := ParseFlags(nil, io.Discard); slices.Contains(c.Sets, gcstress.SetFrontier) {
		t.Error("the default run includes the frontier")
	}
}

// TestFrontierBadInput: every bad frontier input is a one-line usage
// error naming its flag, exit 2.
func TestFrontierBadInput(t *testing.T) {
	fr := []string{"-scenario", "frontier", "-container", "512MiB"}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"-scenario", "frontier", "-container", "16MiB"}, "-container"}, // smaller than an empty process
		{[]string{"-scenario", "frontier", "-container", "1KB"}, "-container"},
		{[]string{"-scenario", "frontier"}, "-container"}, // fractions need a container
		{append(fr, "-gogc", ""), "-gogc"},                // empty grid
		{append(fr, "-gogc", ","), "-gogc"},
		{append(fr, "-memlimit-frac", ""), "-memlimit-frac"},
		{append(fr, "-memlimit-frac", "0"), "-memlimit-frac"}, // outside (0,1]
		{append(fr, "-memlimit-frac", "1.5"), "-memlimit-frac"},
		{append(fr, "-memlimit-frac", "-0.5"), "-memlimit-frac"},
		{append(fr, "-gogc", "0"), "-gogc"}, // bad GOGC list
		{append(fr, "-gogc", "50,abc"), "-gogc"},
		{append(fr, "-gogc", "100,100"), "-gogc"},
		{append(fr, "-headroom", "1"), "-headroom"},
		{append(fr, "-headroom", "-0.1"), "-headroom"},
		{append(fr, "-point-duration", "1s"), "-point-duration"},
		{append(fr, "-confirm-duration", "10s"), "-confirm-duration"},
		{append(fr, "-settle", "-1s"), "-settle"},
		{append(fr, "-settle", "2h"), "-settle"},
		{append(fr, "-values", "10,100"), "-values"},
		{append(fr, "-step-duration", "3s"), "-step-duration"},        // the rate probe's steps
		{[]string{"-scenario", "matrix", "-gogc", "50,100"}, "-gogc"}, // a list is the frontier's
	} {
		_, err := ParseFlags(c.args, io.Discard)
		if !errors.Is(err, gcstress.ErrUsage) || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%v: %v, want a usage error naming %s", c.args, err, c.flag)
			continue
		}
		var stderr strings.Builder
		if code := Main(context.Background(), c.args, io.Discard, &stderr); code != ExitUsage || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want one line and exit 2", c.args, code, stderr.String())
		}
	}
}

func TestHelpListsFrontierFlags(t *testing.T) {
	var stderr syncBuf
	if _, err := ParseFlags([]string{"frontier", "-h"}, &stderr); ExitCode(err) != ExitOK {
		t.Fatal(err)
	}
	for _, want := range []string{"-container", "-memlimit-frac", "-headroom", "-point-duration", "-confirm-duration", "-settle", "-grid", "frontier"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q", want)
		}
	}
}

// TestMemLimitFracRounding: a -memlimit-frac whose GOMEMLIMIT rounds below
// what the memtables need (1e-9 of 512 MiB is 0 bytes, which ran as no
// limit under the name memlimit=none) and two fractions that round to one
// setting are usage errors naming -memlimit-frac and the value.
func TestMemLimitFracRounding(t *testing.T) {
	fr := []string{"-scenario", "frontier", "-container", "512MiB", "-memlimit-frac"}
	for _, c := range []struct{ fracs, want string }{
		{"1e-9", "1e-09"},
		{"none,1e-10", "1e-10"},
		{"0.01", "0.01"}, // 5.1 MiB, below 2 x 16 MiB memtables + the runtime
		{"0.5,0.5001", "0.5 and 0.5001"},
	} {
		_, err := ParseFlags(append(fr, c.fracs), io.Discard)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "-memlimit-frac: "+c.want) {
			t.Errorf("-memlimit-frac %s: %v, want a usage error naming %q", c.fracs, err, c.want)
		}
	}
	if _, err := ParseFlags(append(fr, "none,0.1,0.5,0.9"), io.Discard); err != nil {
		t.Errorf("a sane grid: %v", err)
	}
}
