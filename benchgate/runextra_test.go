package benchgate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// writeEnvSynth writes a module with two benchmarks whose cost per op is
// Work iterations, times 10 when the environment sets SLOW=1.
func writeEnvSynth(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/envsynth\n\ngo 1.26\n",
		"work.go": `package envsynth

// Do runs n dependent multiply-adds.
func Do(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`,
		"work_test.go": `package envsynth

import (
	"os"
	"testing"
)

var sink uint64

func work() int {
	if os.Getenv("SLOW") == "1" {
		return 10000
	}
	return 1000
}

func BenchmarkOne(b *testing.B) {
	n := work()
	for b.Loop() {
		sink = Do(n)
	}
}

func BenchmarkTwo(b *testing.B) {
	n := work()
	for b.Loop() {
		sink = Do(n)
	}
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunTargetEnvProfilesAndMachine runs base and head of one commit with a
// per-target head environment that slows BenchmarkTwo only, profiles what
// ProfileSelect names, writes the machine into both outputs and chooses the
// base with "auto".
func TestRunTargetEnvProfilesAndMachine(t *testing.T) {
	dir := gitModuleDir(t)
	testkit.Git(t, dir, "init", "-q", "-b", "main")
	writeEnvSynth(t, dir)
	testkit.CommitAll(t, dir, "one")
	testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	parent := gitOut(t, dir, "rev-parse", "HEAD~1")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var selected []string
	cfg := RunConfig{Dir: dir, Base: BaseAuto, Head: "HEAD", Count: 3, Benchtime: "1000x", OutDir: t.TempDir(),
		Targets: []Target{
			{Pkg: ".", Bench: "^BenchmarkOne$"},
			{Pkg: ".", Bench: "^BenchmarkTwo$", HeadEnv: []string{"SLOW=1"}},
		},
		ProfileBenchtime: "20x",
		ProfileSelect: func(base, head *Set) []string {
			selected = base.Names()
			for _, n := range selected {
				if strings.HasPrefix(n, "BenchmarkTwo") {
					return []string{n}
				}
			}
			return nil
		},
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.BaseCommit != parent || !strings.Contains(res.BaseReason, "default branch main") {
		t.Errorf("auto base %s (%q), want HEAD~1 %s on main", res.BaseCommit, res.BaseReason, parent)
	}
	if len(selected) != 2 {
		t.Errorf("ProfileSelect saw %v, want both benchmarks", selected)
	}
	for _, s := range []*Set{res.Base, res.Head} {
		fp := s.Fingerprint()
		for _, k := range []string{"goversion", "goos", "goarch", "gomaxprocs", "nproc", "cpu"} {
			if len(fp[k]) != 1 {
				t.Errorf("%s: machine key %s = %q, want one value", s.Files[0], k, fp[k])
			}
		}
	}
	med := func(s *Set, name string) float64 {
		for _, k := range s.Keys {
			if strings.HasPrefix(k.Name, name) && k.Unit == "ns/op" {
				return median(s.Samples[k])
			}
		}
		t.Fatalf("no %s", name)
		return 0
	}
	// BenchmarkTwo's head runs 10x the work; BenchmarkOne's does not.
	if r := med(res.Head, "BenchmarkTwo") / med(res.Base, "BenchmarkTwo"); r < 3 {
		t.Errorf("BenchmarkTwo head/base = %.2f, want about 10 (the target's SLOW=1)", r)
	}
	if r := med(res.Head, "BenchmarkOne") / med(res.Base, "BenchmarkOne"); r > 3 {
		t.Errorf("BenchmarkOne head/base = %.2f, want about 1 (no target env)", r)
	}
	if len(res.Profiles) != 1 {
		t.Fatalf("profiles %+v (notes %q), want one benchmark profiled", res.Profiles, res.Notes)
	}
	p := res.Profiles[0]
	for _, f := range []string{p.BaseCPU, p.HeadCPU, p.BaseMem, p.HeadMem} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("profile %q: %v", f, err)
		}
	}
	if p.BaseOps != 20 || p.HeadOps != 20 {
		t.Errorf("profiled ops %d and %d, want 20 each (ProfileBenchtime 20x)", p.BaseOps, p.HeadOps)
	}
	if d := DiffProfileFiles(res.Profiles, 3); len(d) != 3 || d[0].Err != "" || d[1].Err != "" || d[2].Err != "" {
		t.Errorf("profile diffs %+v, want three readable comparisons", d)
	}
}
