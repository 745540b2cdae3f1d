package lint

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDocInvocations(t *testing.T) {
	md := "Run `go run ./cmd/gcstress -scenario failure -kinds heap` or `-threshold` alone.\n" +
		"```sh\n" +
		"go run ./cmd/benchgate history -db bench.db -format md   # -not-a-flag in a comment\n" +
		"go run ./examples/mystore -kinds mystore,arena | tee out\n" +
		"go test -bench . -benchtime 1x\n" +
		"go test ./gcstress -run TestBrowser -update\n" +
		"```\n"
	got := DocInvocations(md)
	want := []Invocation{
		{Line: 1, Command: "gcstress", Flags: []string{"scenario", "kinds"}},
		{Line: 3, Command: "benchgate", Sub: "history", Flags: []string{"db", "format"}},
		{Line: 4, Command: "gcstress", Flags: []string{"kinds"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestHelpFlags(t *testing.T) {
	set := HelpFlags("usage: x [-alpha 0.01] OLD NEW\n  -threshold string\n    \tthe threshold\n")
	for _, f := range []string{"alpha", "threshold", "h"} {
		if !set[f] {
			t.Errorf("%s missing from %v", f, set)
		}
	}
	if set["the"] {
		t.Errorf("a word of the help text taken as a flag: %v", set)
	}
}

// helpOf runs bin with args and -h and returns what it printed.
func helpOf(t *testing.T, bin string, args ...string) string {
	out, _ := exec.Command(bin, append(args, "-h")...).CombinedOutput()
	return string(out)
}

// TestDocsNameRealFlags: every flag a command line in README.md or docs/
// passes to gcstress or benchgate is one the command's -h lists, so the manual
// cannot drift from the commands.
func TestDocsNameRealFlags(t *testing.T) {
	root := moduleRoot(t)
	bins := t.TempDir()
	flags := map[string]map[string]bool{}
	for _, cmd := range []string{"gcstress", "benchgate"} {
		bin := filepath.Join(bins, cmd)
		if err := GoCommand(root, nil, "build", "-o", bin, "./cmd/"+cmd); err != nil {
			t.Fatal(err)
		}
		flags[cmd] = HelpFlags(helpOf(t, bin))
		for _, sub := range Subcommands[cmd] {
			flags[cmd+" "+sub] = HelpFlags(helpOf(t, bin, sub))
		}
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range DocInvocations(string(b)) {
			key := strings.TrimSpace(inv.Command + " " + inv.Sub)
			for _, f := range inv.Flags {
				checked++
				if !flags[key][f] {
					t.Errorf("%s:%d: %s -%s: no such flag in `%s -h`", filepath.Base(doc), inv.Line, key, f, key)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d flags found in the docs: the scanner is broken", checked)
	}
}
