package adopt

import (
	"os"
	"strings"
	"testing"
)

// steps splits the YAML steps lists of path into their steps, each the text
// from its "- " line to the next at the same indentation (what precedes a
// list's first step is a step of its own, "").
func steps(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	indent := ""
	for _, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case strings.HasPrefix(trimmed, "steps:"):
			indent = ""
			out = append(out, "")
		case strings.HasPrefix(trimmed, "- ") && (indent == "" || l[:len(l)-len(trimmed)] == indent):
			indent = l[:len(l)-len(trimmed)]
			out = append(out, l)
		case len(out) > 0:
			out[len(out)-1] += "\n" + l
		}
	}
	return out
}

// action.yml: the step that runs benchgate (the code under test) is given
// no token; the comment step, which runs no benchmark, alone is, and runs
// after a failed gate too.
func TestActionStepsSeparateTheToken(t *testing.T) {
	var gate, comment string
	for _, s := range steps(t, "../../action.yml") {
		switch {
		case strings.Contains(s, `benchgate-action.sh" gate`):
			gate = s
		case strings.Contains(s, `benchgate-action.sh" comment`):
			comment = s
		}
	}
	if gate == "" || comment == "" {
		t.Fatal("action.yml lacks a gate step and a comment step calling the script's phases")
	}
	if strings.Contains(gate, "TOKEN") || strings.Contains(gate, "inputs.github-token") || strings.Contains(gate, "secrets.") {
		t.Errorf("the gate step is given a token:\n%s", gate)
	}
	if !strings.Contains(comment, "BENCHGATE_GITHUB_TOKEN: ${{ inputs.github-token }}") || !strings.Contains(comment, "always()") {
		t.Errorf("the comment step does not get the token, or does not run after a failed gate:\n%s", comment)
	}
}

// writegc's own workflow: no secret in a job's environment, and none in a
// step that runs `make gate` (the benchmarks of the commit under test).
func TestWorkflowKeepsSecretsFromTheGate(t *testing.T) {
	path := "../../.github/workflows/benchgate.yml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "secrets.BENCHGATE_HISTORY_DSN") {
		t.Fatal("the workflow no longer reads the DSN secret: update this test")
	}
	gates := 0
	for _, s := range steps(t, path) {
		if strings.Contains(s, "make gate") {
			gates++
			if strings.Contains(s, "secrets.") || strings.Contains(s, "DSN") {
				t.Errorf("a gate step is given a secret:\n%s", s)
			}
		}
	}
	if gates == 0 {
		t.Fatal("no step runs make gate")
	}
	// A job-level env: block ("    env:" directly under a job) reaches every step.
	for i, l := range strings.Split(string(b), "\n") {
		if l == "    env:" {
			t.Errorf("%s:%d: a job-level env block reaches the gate step", path, i+1)
		}
	}
}
