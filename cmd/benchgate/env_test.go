package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/testkit"
)

// envRepo commits a module with BenchmarkSteady (1 ms of sleep an op, so
// that no collector nor load makes it regress by 50%; run at 100 ops, as a
// stray allocation of a few KB in one run read as 546 B/op at 10 ops
// and made its exact B/op row noisy) and a file that does
// not compile with the build tag envbroken, and changes into it; the head
// is its clean working tree.
func envRepo(t *testing.T) {
	t.Helper()
	testkit.NeedGoGit(t)
	repo := t.TempDir()
	commitModule(t, repo, map[string]string{
		"go.mod":         "module example.com/envs\n\ngo 1.26\n",
		"broken.go":      "//go:build envbroken\n\npackage envs\n\nvar broken int = \"not an int\"\n",
		"steady_test.go": "package envs\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc BenchmarkSteady(b *testing.B) {\n\tfor b.Loop() {\n\t\ttime.Sleep(time.Millisecond)\n\t}\n}\n",
	})
	t.Chdir(repo)
}

// benchgate run over build environments: one commit built with the classic
// collector and with Green Tea passes and names both environments in both
// reports; an A/A in one environment passes; an environment the go command
// refuses, a toolchain it cannot fetch and a build failing in one
// environment exit 2 with one line naming the side and its K=V, leaving no
// output behind.
func TestCLIRunEnvs(t *testing.T) {
	if testing.Short() {
		// Builds a runtime under GOEXPERIMENT and runs 6+6 rounds: make
		// test-slow runs it; benchgate's TestRunEnvBuildsEachSide and
		// TestCLIEnvDrop keep the environments in make test.
		t.Skip("whole gates in two build environments")
	}
	envRepo(t)
	gate := []string{"run", "-q", "-base", "HEAD", "-count", "6", "-threshold", "50%", "-profiles=false", "-target", ".:^BenchmarkSteady$@100x"}

	t.Run("classic vs green tea", func(t *testing.T) {
		md, db := filepath.Join(t.TempDir(), "gate.md"), filepath.Join(t.TempDir(), "history.db")
		args := append(slices.Clone(gate), "-base-env", "GOEXPERIMENT=nogreenteagc", "-head-env", "", "-markdown", md, "-db", db)
		code, out, errOut := cli(t, args...)
		// 1 ms sleeps scatter on a loaded machine: noisy (exit 3) is the gate
		// saying so, not a failure of what this checks (the environments named).
		if code != 0 && !(code == 3 && strings.Contains(out, "NOISY")) {
			t.Fatalf("exit %d, want 0 (or 3, noisy)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		mdOut, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for name, rep := range map[string]string{"text": out, "markdown": string(mdOut)} {
			if !strings.Contains(rep, "base env: GOEXPERIMENT=nogreenteagc") || !strings.Contains(rep, "head env: (current)") {
				t.Errorf("%s report does not name both environments:\n%s", name, rep)
			}
		}
		// The recorded sides are two series: the base's key holds its env.
		st, err := history.Open(context.Background(), db, history.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		series, err := st.Load(context.Background(), history.Query{Mode: history.ModeGate})
		if err != nil {
			t.Fatal(err)
		}
		var envs, plain int
		for _, se := range series {
			if se.Unit != "ns/op" {
				continue
			}
			if strings.HasSuffix(se.Machine, "; env=GOEXPERIMENT=nogreenteagc") {
				envs++
			} else if !strings.Contains(se.Machine, "env=") {
				plain++
			}
		}
		if envs != 1 || plain != 1 {
			t.Errorf("ns/op series: %d with the env, %d without; want one each: %+v", envs, plain, series)
		}
	})
	t.Run("A/A in one environment", func(t *testing.T) {
		args := append(slices.Clone(gate), "-base-env", "GOEXPERIMENT=nogreenteagc", "-head-env", "GOEXPERIMENT=nogreenteagc")
		if code, out, errOut := cli(t, args...); code != 0 || !strings.Contains(out, "head env: GOEXPERIMENT=nogreenteagc") {
			t.Errorf("exit %d, want 0 naming the environment\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
	t.Setenv("GOPROXY", "off") // no toolchain can be fetched: no network needed
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"unknown GOEXPERIMENT", []string{"-base-env", "GOEXPERIMENT=bogus"}, "base env GOEXPERIMENT=bogus: the go command refuses it: go: unknown GOEXPERIMENT bogus"},
		{"toolchain not fetched", []string{"-head-env", "GOTOOLCHAIN=go1.99.0"}, "head env GOTOOLCHAIN=go1.99.0: the go command refuses it: go: download go1.99.0"},
		{"build fails in one env", []string{"-head-env", `GOFLAGS="-buildvcs=false -tags=envbroken"`}, `head env GOFLAGS="-buildvcs=false -tags=envbroken": go test -c example.com/envs: `},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append(slices.Clone(gate), c.env...), "-out", dir)
			code, out, errOut := cli(t, args...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d, want 2 with one line holding %q\nstdout:\n%s\nstderr:\n%s", code, c.want, out, errOut)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Errorf("left in -out: %q", left)
			}
		})
	}
}

// The environment flags take blank-separated K=V pairs, repeated or not,
// and refuse a pair without '=', an empty name and a name given twice.
func TestEnvFlag(t *testing.T) {
	got, err := envFlag("-base-env", listFlag{"GOEXPERIMENT=nogreenteagc GOAMD64=v3", "", "MARK=1"})
	if want := []string{"GOEXPERIMENT=nogreenteagc", "GOAMD64=v3", "MARK=1"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("envFlag = %q, %v; want %q", got, err, want)
	}
	if got, err := envFlag("-head-env", listFlag{""}); err != nil || len(got) != 0 {
		t.Errorf("envFlag('') = %q, %v; want the current environment", got, err)
	}
	for _, bad := range []listFlag{{"GOEXPERIMENT"}, {"A=1 B"}, {"=1"}, {"A=1", "A=2"}, {"A=1 A=1"}} {
		if _, err := envFlag("-head-env", bad); err == nil || !strings.HasPrefix(err.Error(), "-head-env") {
			t.Errorf("envFlag(%q) = %v; want an error naming -head-env", bad, err)
		}
	}
	for _, args := range [][]string{{"-base-env", "GOEXPERIMENT"}, {"-head-env", "A=1", "-head-env", "A=2"}, {"-base-env", "=x"}} {
		if code, _, errOut := cli(t, append([]string{"run", "-base", "HEAD"}, args...)...); code != 2 || !strings.Contains(errOut, args[0]) {
			t.Errorf("run %q: exit %d, stderr %q; want 2 naming %s", args, code, errOut, args[0])
		}
	}
}
