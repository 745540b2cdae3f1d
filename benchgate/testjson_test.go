package benchgate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// toTestJSON converts benchmark text as `go test -json` would print it: a
// start event, each line an output event of package pkg, a result line in
// two events (its name, then its figures, as the testing package prints
// them), lines of another package's events interleaved, and a pass event.
func toTestJSON(t *testing.T, text, pkg string) string {
	t.Helper()
	var b strings.Builder
	ev := func(action, pkg, output string) {
		e := map[string]string{"Time": "2026-01-01T00:00:00Z", "Action": action, "Package": pkg}
		if action == "output" {
			e["Output"] = output
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	ev("start", pkg, "")
	for i, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		if name, rest, ok := strings.Cut(line, "\t"); ok && strings.HasPrefix(line, "Benchmark") {
			ev("output", pkg, name+"\t")
			ev("output", "example.com/other", fmt.Sprintf("=== RUN   TestOther%d\n", i)) // another package between the halves
			ev("output", pkg, rest)
			continue
		}
		ev("output", pkg, line)
	}
	ev("output", pkg, "PASS\n")
	ev("pass", pkg, "")
	return b.String()
}

// A benchmark file converted to `go test -json` parses into the same Set
// (but for its file names), and compare gives the same report: the same
// verdicts and figures.
func TestParseTestJSONSameAsText(t *testing.T) {
	dir := t.TempDir()
	for _, side := range []string{"base", "head"} {
		text, err := os.ReadFile(filepath.Join("testdata", side+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		js := "\n  \n" + toTestJSON(t, string(text), "example.com/gate") // leading blank lines too
		if err := os.WriteFile(filepath.Join(dir, side+".json"), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, side := range []string{"base", "head"} {
		txt, js := mustParse(t, filepath.Join("testdata", side+".txt")), mustParse(t, filepath.Join(dir, side+".json"))
		js.Files = txt.Files
		if len(txt.Units) != len(js.Units) {
			t.Errorf("%s: %d unit metadata in the text, %d in the JSON form", side, len(txt.Units), len(js.Units))
		}
		for k, m := range txt.Units { // the metadata's positions differ: compare their values
			if js.Units[k] == nil || js.Units[k].Value != m.Value {
				t.Errorf("%s: unit metadata %v = %q in the text, %v in the JSON form", side, k, m.Value, js.Units[k])
			}
		}
		txt.Units, js.Units = nil, nil
		if !reflect.DeepEqual(txt, js) {
			t.Errorf("%s: the JSON form parses differently:\ntext %+v\njson %+v", side, txt, js)
		}
	}
	text := compareTestdata(t)
	acc, err := ReadAccepted("testdata/accepted.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(mustParse(t, filepath.Join(dir, "base.json")), mustParse(t, filepath.Join(dir, "head.json")), Options{Accepted: acc})
	if err != nil {
		t.Fatal(err)
	}
	rep.BaseFiles, rep.HeadFiles = text.BaseFiles, text.HeadFiles
	if !reflect.DeepEqual(text.JSON(), rep.JSON()) {
		t.Errorf("compare of the JSON forms differs from that of the text:\n%+v\n%+v", text.JSON(), rep.JSON())
	}
}

// Malformed lines of JSON input are named by their line in the input: a
// line that does not decode, and a result line with a negative value
// (named by the line that ended it); a line that is not JSON is text.
func TestParseTestJSONMalformed(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"BenchmarkA-2 \t"}
{"Action":"output","Package":"p","Output":" 100\t 12 ns/op\n"}
{"Action":"output","Package":"p","Output":"BenchmarkB-2 \t 100\t -3 ns/op\n"}
{"Action":"output","Package":"p","Outp
BenchmarkC-2 	 100	 7 ns/op
`
	set, err := Parse(strings.NewReader(in), "in.json")
	var mal *MalformedError
	if !errors.As(err, &mal) || len(mal.Lines) != 2 {
		t.Fatalf("err = %v, want 2 malformed lines", err)
	}
	lines := map[int]bool{}
	for _, l := range mal.Lines {
		lines[l.Line] = true
	}
	if !lines[4] || !lines[5] || !strings.Contains(err.Error(), "in.json:5: go test -json") {
		t.Errorf("malformed lines %v (%v): want lines 4 (the negative value) and 5 (bad JSON)", lines, err)
	}
	if got := set.Names(); !reflect.DeepEqual(got, []string{"BenchmarkA-2", "BenchmarkC-2"}) {
		t.Errorf("names %q, want BenchmarkA-2 and BenchmarkC-2", got)
	}
}

// JSON input has the limits of text input: its bytes, its lines, and a
// benchmark line assembled from many short events.
func TestParseTestJSONLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"Action":"output","Package":"p","Output":"BenchmarkA-2 \t 100\t 12 ns/op\n"}` + "\n")
	for range 200 {
		b.WriteString(`{"Action":"output","Package":"p","Output":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}` + "\n")
	}
	_, err := Parser{MaxLineBytes: 4096}.Parse(strings.NewReader(b.String()), "long.json")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "long.json:") {
		t.Errorf("an assembled line of 10000 bytes, limit 4096: err = %v, want ErrTooLarge naming the line", err)
	}
	_, err = Parser{MaxBytes: 1000}.Parse(strings.NewReader(b.String()), "big.json")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("an input over MaxBytes: err = %v, want ErrTooLarge", err)
	}
	long := `{"Action":"output","Package":"p","Output":"` + strings.Repeat("y", 5000) + `"}` + "\n"
	_, err = Parser{MaxLineBytes: 4096}.Parse(strings.NewReader(long), "line.json")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "line.json:1:") {
		t.Errorf("an input line over MaxLineBytes: err = %v, want ErrTooLarge naming line 1", err)
	}
}
