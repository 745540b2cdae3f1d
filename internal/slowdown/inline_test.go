//go:build !gateslow

package slowdown

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInjectInlinesAway guards the package's promise that an untagged build
// pays nothing at a site: the compiler must inline every call of Inject in
// the module (the empty body then leaves no instruction). It finds the call
// sites in the module's non-test sources, builds their packages with -m and
// requires "inlining call to slowdown.Inject" at each one.
func TestInjectInlinesAway(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root := moduleRoot(t, goBin)
	sites, pkgs := injectSites(t, root)
	if len(sites) == 0 {
		t.Fatal("found no call of slowdown.Inject in the module: the search is broken")
	}
	args := []string{"build"}
	for _, p := range pkgs {
		args = append(args, "-gcflags="+p+"=-m")
	}
	args = append(args, pkgs...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=") // no -tags gateslow from outside
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, site := range sites {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(site) + `:\d+: inlining call to slowdown\.Inject$`)
		if !re.Match(out) {
			t.Errorf("%s: the call of slowdown.Inject is not inlined (go build -gcflags=-m says nothing of it)", site)
		}
	}
}

func moduleRoot(t *testing.T, goBin string) string {
	t.Helper()
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		t.Skip("not inside the module")
	}
	return filepath.Dir(mod)
}

// injectSites returns the "dir/file.go:line" of every call of
// slowdown.Inject in the module's non-test Go files (nested modules, such as
// benches/peers, excluded) and the packages, as ./dir patterns, that hold
// them.
func injectSites(t *testing.T, root string) (sites, pkgs []string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			code, _, _ := strings.Cut(sc.Text(), "//")
			if strings.Contains(code, "slowdown.Inject(") {
				sites = append(sites, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), line))
				if dir := "./" + filepath.ToSlash(filepath.Dir(rel)); !seen[dir] {
					seen[dir] = true
					pkgs = append(pkgs, dir)
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return sites, pkgs
}
