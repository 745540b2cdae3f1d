package main

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate"
)

func TestCLIMeasureFlags(t *testing.T) {
	for _, tc := range []exitCase{
		{"run -measure foo", []string{"run", "-base", "HEAD", "-measure", "foo"}, 2, `-measure "foo": want wall or instructions`},
		{"calibrate -measure foo", []string{"calibrate", "-o", "-", "-measure", "foo"}, 2, `-measure "foo"`},
		{"duration benchtime", []string{"run", "-base", "HEAD", "-measure", "instructions", "-benchtime", "1s"}, 2, "fixed op count"},
		{"duration target benchtime", []string{"run", "-base", "HEAD", "-measure", "instructions", "-target", ".:.@50ms"}, 2, "fixed op count"},
		{"-jobs negative", []string{"run", "-base", "HEAD", "-measure", "instructions", "-jobs", "-1"}, 2, "-jobs"},
		{"-jobs too many", []string{"run", "-base", "HEAD", "-jobs", "65"}, 2, "-jobs"},
	} {
		tc.check(t)
	}
	if _, _, errOut := cli(t, "run", "-h"); !strings.Contains(errOut, "-measure") || !strings.Contains(errOut, "instructions/op") {
		t.Errorf("run -h does not document -measure:\n%s", errOut)
	}
}

// The instruction mode's default rounds are DefaultInstructionCount unless
// -count (calibrate: -rounds) is given; wall mode keeps its default.
func TestSetMeasureCount(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		m    benchgate.Measure
	}{
		{nil, 10, benchgate.MeasureWall},
		{[]string{"-measure", "instructions"}, benchgate.DefaultInstructionCount, benchgate.MeasureInstructions},
		{[]string{"-measure", "instructions", "-count", "10"}, 10, benchgate.MeasureInstructions},
		{[]string{"-measure", "wall", "-count", "7"}, 7, benchgate.MeasureWall},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var r runFlags
		r.register(fs)
		count := fs.Int("count", 10, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if err := r.setMeasure(fs, count, "count"); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if *count != tc.want || r.cfg.Measure != tc.m {
			t.Errorf("%v: count %d measure %q, want %d %q", tc.args, *count, r.cfg.Measure, tc.want, tc.m)
		}
	}
}
