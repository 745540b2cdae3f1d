package benchgate

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// culpritModule is a module whose benchmark spends about 90% of its time
// in Slowed and 10% in Steady; slowed sets Slowed's work (1.3 = 30% more).
func culpritModule(slowed float64) map[string]string {
	return map[string]string{
		"go.mod": "module example.com/culprit\n\ngo 1.26\n",
		"culprit.go": fmt.Sprintf(`package culprit

// SlowedWork and SteadyWork are the loop lengths of one op.
const SlowedWork, SteadyWork = %d, 400

// Slowed and Steady each run their own loop, so each has its own flat time.
//
//go:noinline
func Slowed() uint64 {
	x := uint64(1)
	for i := 0; i < SlowedWork; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func Steady() uint64 {
	x := uint64(3)
	for i := 0; i < SteadyWork; i++ {
		x = x*2862933555777941757 + 3037000493
	}
	return x
}
`, int(3600*slowed)),
		"culprit_test.go": `package culprit

import "testing"

var sink uint64

func BenchmarkOp(b *testing.B) {
	for b.Loop() {
		sink += Slowed() + Steady()
	}
}
`,
	}
}

// The case profiles are for, end to end: a commit makes one function 30% slower
// (its share of the profile hardly moves); "where it got slower" names it
// first, from real CPU profiles of base and head run for the same ops.
func TestRunProfileNamesTheCulprit(t *testing.T) {
	if testing.Short() {
		t.Skip("a gate run with profiles: make test-slow")
	}
	dir := gitModuleDir(t)
	commitBaseHead(t, dir, func() { testkit.Write(t, dir, culpritModule(1)) },
		func() { testkit.Write(t, dir, culpritModule(1.3)) }) // Slowed 30% slower
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// 3 s of profile a side: about 270 CPU samples in Slowed, enough that
	// sampling noise (a few percent) cannot hide a 30% rise.
	res, err := Run(ctx, RunConfig{Dir: dir, Base: "HEAD~1", Head: "HEAD", Count: 2, Benchtime: "2000x", OutDir: t.TempDir(), ProfileBenchtime: "3s",
		ProfileSelect: func(base, head *Set) []string { return base.Names() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profiles) != 1 || res.Profiles[0].BaseOps != res.Profiles[0].HeadOps || res.Profiles[0].BaseOps < 1000 {
		t.Fatalf("profiles %+v (notes %q), want one benchmark profiled for the same ops on both sides", res.Profiles, res.Notes)
	}
	diffs := DiffProfileFiles(res.Profiles, DefaultProfileTop)
	cpu := diffs[0]
	if cpu.SampleType != SampleCPU || cpu.Err != "" || len(cpu.Funcs) == 0 {
		t.Fatalf("CPU diff %+v", cpu)
	}
	for _, f := range cpu.Funcs {
		t.Logf("%-40s flat %.0f -> %.0f ns/op, cum %.0f -> %.0f", f.Func, f.BaseFlat, f.HeadFlat, f.BaseCum, f.HeadCum)
	}
	if got := cpu.Funcs[0].Func; got != "example.com/culprit.Slowed" {
		t.Errorf("first function %s, want example.com/culprit.Slowed", got)
	}
	for _, f := range cpu.Funcs {
		if isBookkeeping(f.Func) || strings.HasPrefix(f.Func, "runtime/pprof.") {
			t.Errorf("bookkeeping %s listed", f.Func)
		}
	}
}
