package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/writegc/writegc/benchgate"
)

// compare -json writes the report as JSON, replacing the file whole (no
// temporary file left beside it), with the exit status unchanged; the
// status field matches the exit status, missing data included; a folder
// that does not exist exits 2 naming -json.
func TestCLICompareJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gate.json")
	if err := os.WriteFile(path, []byte("an older, longer report that must not survive in part"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, "compare", "-accept", "testdata/accepted.txt", "-json", path, "testdata/base.txt", "testdata/head.txt")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	var rep benchgate.JSONReport
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%v:\n%s", err, raw)
	}
	if rep.Status != "fail" || len(rep.Rows) != 16 || rep.Rows[0].Verdict != "regressed" || rep.Rows[0].MDE == nil || rep.Rows[0].Change == nil || rep.Rows[0].Noise == nil {
		t.Errorf("report: status %q, %d rows, first %+v", rep.Status, len(rep.Rows), rep.Rows[0])
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want gate.json alone", len(entries))
	}

	base, head := writeNoisySides(t, 7)
	if code, _, _ := cli(t, "compare", "-count", "10", "-json", path, base, head); code != 2 {
		t.Errorf("missing rounds: exit %d, want 2", code)
	}
	raw, _ = os.ReadFile(path)
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Status != "error" || !strings.Contains(rep.Error, "BenchmarkShort-2") {
		t.Errorf("missing rounds: %v, status %q, error %q; want error naming BenchmarkShort-2", err, rep.Status, rep.Error)
	}
	base, head = writeNoisySides(t, 10)
	if code, _, _ := cli(t, "compare", "-json", path, base, head); code != 3 {
		t.Errorf("noisy: exit %d, want 3", code)
	}
	raw, _ = os.ReadFile(path)
	if err := json.Unmarshal(raw, &rep); err != nil || rep.Status != "noisy" {
		t.Errorf("noisy: %v, status %q", err, rep.Status)
	}

	code, _, errOut = cli(t, "compare", "-json", filepath.Join(dir, "missing", "gate.json"), "testdata/base.txt", "testdata/head.txt")
	if code != 2 || !strings.Contains(errOut, "-json") {
		t.Errorf("-json in a missing folder: exit %d, stderr %q; want 2 naming -json", code, errOut)
	}
}
