package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/internal/testkit"
)

// tinyBench is a module with a tiny benchmark and a sub-benchmark.
var tinyBench = map[string]string{
	"go.mod": "module example.com/tiny\n\ngo 1.26\n",
	"tiny_test.go": `package tiny

import "testing"

var sink uint64

func BenchmarkTiny(b *testing.B) {
	for b.Loop() {
		for i := 0; i < 50; i++ {
			sink = sink*6364136223846793005 + 1442695040888963407
		}
	}
}

func BenchmarkSub(b *testing.B) {
	b.Run("n=1", func(b *testing.B) {
		for b.Loop() {
			sink++
		}
	})
}
`,
}

// compare on `go test -json` output gives the same verdicts as on the text
// of the same runs: two runs of a real test binary, each kept as text and
// as JSON (go tool test2json, what go test -json runs its output
// through), judge alike, figures and all. A real `go test -json -bench`
// run is read too: every benchmark, every round.
func TestCLICompareTestJSON(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	testkit.Write(t, dir, tinyBench)
	bin := filepath.Join(dir, "tiny.test")
	goRun := func(stdin []byte, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out
	}
	goRun(nil, goBin, "test", "-c", "-o", bin, ".")
	for _, side := range []string{"old", "new"} {
		text := goRun(nil, bin, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", "200x", "-test.count", "5", "-test.benchmem")
		js := goRun(text, goBin, "tool", "test2json", "-p", "example.com/tiny")
		testkit.Write(t, dir, map[string]string{side + ".txt": string(text), side + ".json": string(js)})
	}
	reports := map[string]benchgate.JSONReport{}
	for _, ext := range []string{"txt", "json"} {
		out := filepath.Join(dir, ext+"-report.json")
		code, stdout, stderr := cli(t, "compare", "-count", "5", "-json", out, filepath.Join(dir, "old."+ext), filepath.Join(dir, "new."+ext))
		if code == 2 {
			t.Fatalf("compare %s: exit 2\n%s\n%s", ext, stdout, stderr)
		}
		var rep benchgate.JSONReport
		raw, _ := os.ReadFile(out)
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		rep.BaseFiles, rep.HeadFiles, rep.Summary = nil, nil, ""
		reports[ext] = rep
	}
	if !reflect.DeepEqual(reports["txt"], reports["json"]) {
		t.Errorf("compare of the JSON forms differs from the text's:\n%+v\n%+v", reports["txt"], reports["json"])
	}
	if n := len(reports["json"].Rows); n != 6 {
		t.Errorf("%d rows, want 6 (2 benchmarks x 3 units)", n)
	}

	real := goRun(nil, goBin, "test", "-json", "-run", "^$", "-bench", ".", "-benchtime", "100x", "-count", "3", ".")
	set, err := benchgate.Parse(bytes.NewReader(real), "real.json")
	if err != nil {
		t.Fatalf("go test -json output: %v\n%s", err, real)
	}
	names := strings.Join(set.Names(), " ")
	for _, k := range set.Keys {
		if n := len(set.Samples[k]); n != 3 {
			t.Errorf("%s %s: %d values, want 3", k.Name, k.Unit, n)
		}
	}
	if !strings.HasPrefix(names, "BenchmarkTiny") || !strings.Contains(names, "BenchmarkSub/n=1") || set.Config["pkg"] != "example.com/tiny" {
		t.Errorf("names %q, pkg %q", names, set.Config["pkg"])
	}
}
