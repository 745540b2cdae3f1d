package lint

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/writegc/writegc/internal/testkit"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

var staticcheckBin struct {
	once sync.Once
	path string
	err  error
}

func staticcheck(t *testing.T) string {
	t.Helper()
	staticcheckBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "writegc-lint-")
		if err != nil {
			staticcheckBin.err = err
			return
		}
		staticcheckBin.path, staticcheckBin.err = BuildStaticcheck(moduleRoot(t), dir)
	})
	if staticcheckBin.err != nil {
		t.Fatal(staticcheckBin.err)
	}
	return staticcheckBin.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if staticcheckBin.path != "" {
		os.RemoveAll(filepath.Dir(staticcheckBin.path))
	}
	os.Exit(code)
}

func report(t *testing.T, what string, found []Finding) {
	t.Helper()
	for _, f := range found {
		t.Errorf("%s: %s", what, f)
	}
}

// TestRepository is `make lint` as a test: every rule on this checkout.
func TestRepository(t *testing.T) {
	root := moduleRoot(t)
	t.Run("tracked-files", func(t *testing.T) {
		files, err := TrackedFiles(root)
		if err != nil {
			t.Skip("not a git checkout:", err)
		}
		found, err := CheckTrackedFiles(root, files)
		if err != nil {
			t.Fatal(err)
		}
		report(t, "tracked file", found)
	})
	pkgs, err := LoadPackages(root, os.Environ(), "./...")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("imports", func(t *testing.T) { report(t, "architecture", CheckImports(Module, pkgs, importRules)) })
	t.Run("libraries", func(t *testing.T) {
		found, err := CheckLibraries(Module, pkgs)
		if err != nil {
			t.Fatal(err)
		}
		report(t, "library", found)
	})
	t.Run("staticcheck", func(t *testing.T) {
		lines, err := Staticcheck(staticcheck(t), root, "./...")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			t.Error(l)
		}
	})
	t.Run("darwin-vet", func(t *testing.T) {
		if err := GoCommand(root, []string{"GOOS=darwin"}, "vet", "./..."); err != nil {
			t.Error(err)
		}
	})
	t.Run("windows-build", func(t *testing.T) {
		if err := GoCommand(root, []string{"GOOS=windows"}, "build", "-o", os.DevNull, "./..."); err != nil {
			t.Error(err)
		}
	})
}

func TestTrackedFilesFindsExecutablesAndLargeFiles(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", MaxTrackedBytes+1)
	testkit.Write(t, dir, map[string]string{
		"reliability":                   "\x7fELF\x02\x01\x01",
		"reliability.exe":               "MZ\x90\x00",
		"tool.macho":                    "\xcf\xfa\xed\xfe",
		"docs/big.md":                   big,
		"results/x/big.json":            big,
		"pkg/testdata/big.txt":          big,
		"README.md":                     "# fine\n",
		"pkg/testdata/notbinary.go.txt": "package x\n",
	})
	files := []string{"reliability", "reliability.exe", "tool.macho", "docs/big.md", "results/x/big.json",
		"pkg/testdata/big.txt", "README.md", "pkg/testdata/notbinary.go.txt", "deleted-since"}
	found, err := CheckTrackedFiles(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range found {
		got[f.Where] = true
	}
	for _, want := range []string{"reliability", "reliability.exe", "tool.macho", "docs/big.md"} {
		if !got[want] {
			t.Errorf("%s not found; findings %v", want, found)
		}
	}
	if len(found) != 4 {
		t.Errorf("findings %v, want exactly the 4 above", found)
	}
}

func TestImportRulesFindForbiddenDependencies(t *testing.T) {
	pkgs := []Package{
		{ImportPath: Module + "/gcstress/results", Deps: []string{"fmt", Module + "/gcmetrics", "gonum.org/v1/plot", "net/http"}},
		{ImportPath: Module + "/gcmetrics", Deps: []string{"math", Module + "/arena"}},
		{ImportPath: Module + "/benchgate/changepoint", Deps: []string{"math", Module + "/benchgate"}},
		{ImportPath: Module + "/gcstress/report", Deps: []string{Module + "/gcstress"}},
		{ImportPath: Module + "/benchgate/history", Deps: []string{Module + "/benchgate", Module + "/memtable"}},
		{ImportPath: Module + "/benchgate/internal/slowcal", Deps: []string{Module + "/internal/slowdown"}},
		{ImportPath: Module + "/arena", Deps: []string{Module + "/internal/slowdown"}},
		{ImportPath: Module + "/gcmetrics/health", Deps: []string{"encoding/json", Module + "/gcmetrics"}},
		{ImportPath: Module + "/gchealth", Deps: []string{Module + "/gcmetrics/health", Module + "/gcstress/results"}},
		{ImportPath: Module + "/gchealth/gchealthprom", Deps: []string{Module + "/gchealth", Module + "/gcstress"}},
	}
	found := CheckImports(Module, pkgs, importRules)
	want := []string{
		"gcstress/results: depends on gonum.org/v1/plot",
		"gcstress/results: depends on net/http",
		"gcmetrics: depends on arena",
		"benchgate/changepoint: depends on benchgate",
		"gcstress/report: depends on gcstress",
		"benchgate/history: depends on memtable",
		"gcmetrics/health: depends on gcmetrics",
		"gchealth: depends on gcstress/results",
		"gchealth/gchealthprom: depends on gcstress",
	}
	if len(found) != len(want) {
		t.Errorf("got %d findings %v, want %d", len(found), found, len(want))
	}
	for _, w := range want {
		ok := false
		for _, f := range found {
			ok = ok || strings.HasPrefix(f.String(), w)
		}
		if !ok {
			t.Errorf("missing %q in %v", w, found)
		}
	}
}

const fakeModule = "example.com/lintprobe"

func fakeModuleDir(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	files["go.mod"] = "module " + fakeModule + "\n\ngo 1.26\n"
	testkit.Write(t, dir, files)
	return dir
}

func TestLibrariesFindFlagAndExit(t *testing.T) {
	dir := fakeModuleDir(t, map[string]string{
		"lib/lib.go":    "package lib\n\nimport (\n\t\"flag\"\n\tgoos \"os\"\n)\n\nvar V = flag.Bool(\"v\", false, \"\")\n\nfunc Die() { goos.Exit(1) }\n",
		"lib/ok.go":     "package lib\n\nimport \"os\"\n\nfunc Env() string { return os.Getenv(\"X\") }\n",
		"cmd/x/main.go": "package main\n\nimport (\n\t\"flag\"\n\t\"os\"\n)\n\nfunc main() { flag.Parse(); os.Exit(0) }\n",
	})
	pkgs, err := LoadPackages(dir, os.Environ(), "./...")
	if err != nil {
		t.Fatal(err)
	}
	found, err := CheckLibraries(fakeModule, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || !strings.Contains(found[0].String()+found[1].String(), "os.Exit") ||
		!strings.Contains(found[0].String()+found[1].String(), "imports flag") {
		t.Fatalf("findings %v, want lib/lib.go's flag import and os.Exit call only", found)
	}
}

func TestStaticcheckFindsAFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds staticcheck")
	}
	dir := fakeModuleDir(t, map[string]string{
		"p/p.go": "package p\n\nimport \"strings\"\n\nfunc F(s string) { strings.ToUpper(s) }\n",
	})
	lines, err := Staticcheck(staticcheck(t), dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "SA4017") {
		t.Fatalf("staticcheck on a discarded strings.ToUpper: %q, want an SA4017 finding", lines)
	}
}
