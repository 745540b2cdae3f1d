package benchgate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/internal/testkit"
)

// synthModule writes a tiny module whose benchmark's cost is set by the
// constant Work, so the test controls how fast head and base are.
func writeSynth(t *testing.T, dir string, work int, withBench bool) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/synth\n\ngo 1.26\n",
		"work.go": fmt.Sprintf(`package synth

// Work is the number of loop iterations per benchmark operation.
const Work = %d

// Do runs n dependent multiply-adds.
func Do(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`, work),
	}
	if withBench {
		files["work_test.go"] = `package synth

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Do(Work)
	}
}
`
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitModuleDir skips the test without go or git, isolates the go command
// from the caller's workspace and VCS stamping, and returns an empty
// directory for a test module and its repository.
func gitModuleDir(t *testing.T) string {
	t.Helper()
	testkit.NeedGoGit(t)
	return t.TempDir()
}

// commitBaseHead makes dir a repository of two commits: HEAD~1, what base
// writes, and HEAD, what head then changes.
func commitBaseHead(t *testing.T, dir string, base, head func()) {
	t.Helper()
	base()
	testkit.CommitAll(t, dir, "base")
	head()
	testkit.Git(t, dir, "commit", "-q", "-am", "head")
}

// needRealValgrind skips the test under -short and where valgrind is not
// in PATH.
func needRealValgrind(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs valgrind (-short)")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind not in PATH (apt-get install valgrind)")
	}
}

// TestRunSynthetic runs the whole gate (worktree, build, interleaved rounds,
// compare) over a generated module whose speed the test sets: 4x slower must
// regress, 4x faster must pass, and a base without the benchmark is skipped.
func TestRunSynthetic(t *testing.T) {
	dir := gitModuleDir(t)
	writeSynth(t, dir, 200, false)
	testkit.CommitAll(t, dir, "no benchmark yet")
	testkit.Git(t, dir, "tag", "nobench")
	writeSynth(t, dir, 200, true)
	testkit.CommitAll(t, dir, "fast")
	testkit.Git(t, dir, "tag", "fast")
	writeSynth(t, dir, 800, true)
	testkit.Git(t, dir, "commit", "-q", "-am", "slow")
	testkit.Git(t, dir, "tag", "slow")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// 8+8 rounds of 20000x (tens of ms a run, so one scheduling hiccup is
	// not a whole run): a few load spikes on a shared machine still leave
	// p < alpha. At 3000x, under -race, one base round slowed past the 4x
	// slower head's gave p=0.0104 and failed at alpha 0.01.
	cfg := RunConfig{Dir: dir, Count: 8, Benchtime: "20000x", Benchmem: true,
		Preamble: "Unit ns/op better=lower\n"}

	t.Run("slower head regresses", func(t *testing.T) {
		c := cfg
		c.Base, c.Head, c.OutDir = "fast", "slow", t.TempDir()
		res, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Compare(res.Base, res.Head, Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		row := findRow(t, rep, "ns/op")
		if row.Verdict != Regressed || row.NBase != 8 || row.NHead != 8 {
			t.Errorf("4x slower: %+v, want regressed with n=8+8", row)
		}
		if r := findRow(t, rep, "allocs/op"); r.Verdict != Unchanged {
			t.Errorf("allocs/op: %+v, want unchanged", r)
		}
	})
	t.Run("faster working tree passes", func(t *testing.T) {
		writeSynth(t, dir, 50, true) // uncommitted: the working tree is the head
		c := cfg
		c.Base = "slow"
		res, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(filepath.Dir(res.BaseFile))
		// Alpha 0.05: beside other load, a round or two of a short run can
		// be slowed past the other side's (the 8 a side then gave p=0.0104
		// once under -race on a loaded 2-core machine); the 16x gap is what
		// is tested, not the U test's tail.
		rep, err := Compare(res.Base, res.Head, Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if row := findRow(t, rep, "ns/op"); row.Verdict != Improved || rep.Regressed() {
			t.Errorf("16x faster: %+v, want improved and no regression", row)
		}
	})
	t.Run("base without the benchmark", func(t *testing.T) {
		c := cfg
		c.Base, c.Head, c.OutDir, c.AllowEmptyBase = "nobench", "fast", t.TempDir(), true
		if _, err := Run(ctx, c); !errors.Is(err, ErrBaseEmpty) {
			t.Errorf("err = %v, want ErrBaseEmpty", err)
		}
	})
	t.Run("per-target benchtime", func(t *testing.T) {
		// The target's 7x replaces the config's 20000x on both sides, and
		// only for its own runs: every result line has 7 iterations.
		c := cfg
		c.Base, c.Head, c.OutDir, c.Count = "fast", "fast", t.TempDir(), 2
		c.Targets = []Target{{Pkg: ".", Bench: "^BenchmarkWork$", Benchtime: "7x"}}
		res, err := Run(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{res.BaseFile, res.HeadFile} {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, line := range strings.Split(string(raw), "\n") {
				if fs := strings.Fields(line); len(fs) > 1 && strings.HasPrefix(fs[0], "BenchmarkWork") {
					n++
					if fs[1] != "7" {
						t.Errorf("%s: %q: want 7 iterations (the target's benchtime)", f, line)
					}
				}
			}
			if n != 2 {
				t.Errorf("%s: %d result lines, want 2", f, n)
			}
		}
	})
	t.Run("bad target benchtime", func(t *testing.T) {
		c := cfg
		c.Base = "fast"
		c.Targets = []Target{{Pkg: ".", Bench: ".", Benchtime: "0x"}}
		if _, err := Run(ctx, c); !errors.Is(err, errBadOption) {
			t.Errorf("err = %v, want errBadOption", err)
		}
	})
	t.Run("unknown revision", func(t *testing.T) {
		c := cfg
		c.Base = "no-such-ref"
		if _, err := Run(ctx, c); !errors.Is(err, ErrBuild) {
			t.Errorf("err = %v, want ErrBuild", err)
		}
	})
	out, err := exec.Command("git", "-C", dir, "worktree", "list").Output()
	if err != nil || len(out) == 0 || countLines(string(out)) != 1 {
		t.Errorf("worktrees left behind: %s (%v)", out, err)
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

func findRow(t *testing.T, rep *Report, unit string) Row {
	t.Helper()
	for _, r := range rep.Rows {
		if r.Unit == unit {
			return r
		}
	}
	t.Fatalf("no %s row in %+v", unit, rep.Rows)
	return Row{}
}
