package lint

import (
	"fmt"
	"os/exec"
	"strings"
)

// Module is writegc's module path.
const Module = "github.com/writegc/writegc"

// Package is one package of an import graph: its path, name, folder, non-test
// Go files and every package it depends on, directly or not.
type Package struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Deps       []string
}

// importRule states one arrow of docs/ARCHITECTURE.md as a check on a
// package's transitive dependencies.
type importRule struct {
	pkg     string   // module-relative import path
	subtree bool     // the rule holds for every package under pkg too
	except  []string // module-relative packages under pkg the rule leaves out
	allow   []string // of writegc, only these module-relative prefixes (nil: any)
	deny    []string // module-relative packages it must not depend on
	denyExt []string // outside import-path prefixes it must not depend on
}

// importRules is the architecture, one list. Every rule is a transitive
// dependency rule: "results imports no gonum" means nothing results depends
// on imports it either.
var importRules = []importRule{
	{pkg: "gcstress/results", allow: []string{"gcmetrics", "internal/workload", "internal/inputfile", "internal/stat"}, denyExt: []string{"gonum.org/", "net/http"}},
	{pkg: "gcstress/report", deny: []string{"gcstress"}},
	// The searches (capacity, frontier) are pure functions of the Results
	// their Runner gives them: no orchestration, no processes, no rendering.
	{pkg: "gcstress/internal/plan", deny: []string{"gcstress", "gcstress/report", "gcstress/internal/proto"},
		denyExt: []string{"os/exec", "net/http", "gonum.org/"}},
	// The parent's side of a child process: it builds, starts and reads
	// children and writes the folder, never the orchestration that chose
	// them nor a rendering.
	{pkg: "gcstress/internal/runner", deny: []string{"gcstress", "gcstress/report"},
		denyExt: []string{"net/http", "gonum.org/"}},
	// The child's side (its load, the mixed workload, the sampler, the
	// traces, the profiles) drives the engine it is given: it starts no
	// process and knows nothing of the orchestration or the parent's side.
	{pkg: "gcstress/internal/child", deny: []string{"gcstress", "gcstress/report", "gcstress/internal/runner"},
		denyExt: []string{"os/exec", "gonum.org/"}},
	{pkg: "benchgate", subtree: true, except: []string{"benchgate/internal/slowcal", "benchgate/internal/synthbench"},
		allow: []string{"benchgate", "internal/oskit", "internal/atomicfile", "internal/inputfile", "internal/stat", "internal/buildenv"}},
	// changepoint is a leaf but for the leaf it shares with benchgate:
	// internal/stat (the one median, the one "which way is better" type).
	{pkg: "benchgate/changepoint", allow: []string{"internal/stat"}},
	{pkg: "internal/stat", allow: []string{}},
	{pkg: "internal/buildenv", allow: []string{}},
	{pkg: "arena", allow: []string{"internal/slowdown"}},
	{pkg: "gcmetrics", allow: []string{}},
	// The health rules (classes, causes, thresholds, the spiral) are a
	// leaf, so that the harness and the production library share them.
	{pkg: "gcmetrics/health", allow: []string{}},
	// gchealth, the production library, depends on nothing of the
	// harness: its rules are gcmetrics/health's.
	{pkg: "gchealth", subtree: true, allow: []string{"gchealth", "gcmetrics", "internal/atomicfile"}, denyExt: []string{"os/exec"}},
	{pkg: "explain", subtree: true, allow: []string{"gcmetrics", "internal/atomicfile", "internal/inputfile", "internal/stat", "internal/usage"}},
	{pkg: "internal/atomicfile", allow: []string{}, denyExt: []string{"os/exec"}},
}

// LoadPackages lists the packages that patterns match in dir (go list).
func LoadPackages(dir string, env []string, patterns ...string) ([]Package, error) {
	args := append([]string{"list", "-e", "-f",
		"{{.ImportPath}}\t{{.Name}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{join .Deps \",\"}}"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w", dir, err)
	}
	var pkgs []Package
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			continue
		}
		pkgs = append(pkgs, Package{ImportPath: f[0], Name: f[1], Dir: f[2], GoFiles: splitList(f[3]), Deps: splitList(f[4])})
	}
	return pkgs, nil
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// CheckImports applies rules to pkgs of module mod.
func CheckImports(mod string, pkgs []Package, rules []importRule) []Finding {
	var found []Finding
	for _, p := range pkgs {
		rel, ok := relative(mod, p.ImportPath)
		if !ok {
			continue
		}
		for _, r := range rules {
			if r.covers(rel) {
				found = append(found, r.check(mod, rel, p.Deps)...)
			}
		}
	}
	return found
}

func (r importRule) covers(rel string) bool {
	for _, e := range r.except {
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return false
		}
	}
	return rel == r.pkg || (r.subtree && strings.HasPrefix(rel, r.pkg+"/"))
}

func (r importRule) check(mod, rel string, deps []string) []Finding {
	var found []Finding
	for _, d := range deps {
		if drel, ok := relative(mod, d); ok {
			if why := r.refuses(drel); why != "" {
				found = append(found, Finding{rel, fmt.Sprintf("depends on %s (%s)", drel, why)})
			}
			continue
		}
		for _, x := range r.denyExt {
			if strings.HasPrefix(d, x) {
				found = append(found, Finding{rel, fmt.Sprintf("depends on %s (the architecture forbids %s in %s)", d, x, r.pkg)})
			}
		}
	}
	return found
}

func (r importRule) refuses(drel string) string {
	for _, d := range r.deny {
		if drel == d {
			return "forbidden for " + r.pkg
		}
	}
	if r.allow == nil {
		return ""
	}
	for _, a := range r.allow {
		if drel == a || strings.HasPrefix(drel, a+"/") {
			return ""
		}
	}
	if len(r.allow) == 0 {
		return r.pkg + " is a leaf: it imports nothing of writegc"
	}
	return r.pkg + " may import only " + strings.Join(r.allow, ", ")
}

func relative(mod, path string) (string, bool) {
	if path == mod {
		return "", true
	}
	if rel, ok := strings.CutPrefix(path, mod+"/"); ok {
		return rel, true
	}
	return "", false
}
