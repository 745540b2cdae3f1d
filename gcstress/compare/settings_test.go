package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/testkit"
)

// scenario is a matrix scenario of kind at 100 B values, as a run records it.
func scenario(kind string, gogc int) results.Scenario {
	return results.Scenario{Name: kind + "/100B", Group: results.SetMatrix, Kind: kind, Value: 100, Keys: 400_000, GOGC: gogc,
		Memstore: 16 << 20, Regions: 1, Writers: 2, Window: time.Second, Seed: 1, Thresholds: results.DefaultThresholds()}
}

// folder writes a results folder: bench.txt with one run of objects/entry
// and MB/s per scenario, and summary.json recording them (none when
// summary is "none"; that text itself when it does not start with "{").
func folder(t *testing.T, dir, name, goVersion string, summary string, ss ...results.Scenario) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goversion: " + goVersion + "\ngcstress-count: 1\n")
	sum := results.Summary{GoVersion: goVersion, GOOS: "linux", GOARCH: "amd64", CPUs: 2}
	for _, s := range ss {
		fmt.Fprintf(&b, "%s \t1000\t40 MB/s\t2 objects/entry\n", KeyOf(s).Name())
		sum.Results = append(sum.Results, results.Result{Scenario: s})
	}
	files := map[string]string{FileName: b.String()}
	switch {
	case summary == "":
		j, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		files["summary.json"] = string(j)
	case summary != "none":
		files["summary.json"] = summary
	}
	return testkit.Dir(t, dir, name, files)
}

// TestSettingsDiffer: a GOGC 100 run against a GOGC 25 run names GOGC,
// before any row, with the rows measured across it; the kind only OLD ran
// is missing and the comparison passes.
func TestSettingsDiffer(t *testing.T) {
	dir := t.TempDir()
	old := folder(t, dir, "gogc100", "go1.26.0", "", scenario("heap", 100), scenario("arena", 100))
	low := scenario("heap", 25)
	low.MemLimit, low.KeyDist = 64<<20, "zipfian"
	new := folder(t, dir, "gogc25", "go1.26.1", "", low)
	rep, err := Dirs(old, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, s := range rep.Settings {
		got[s.Name] = s
	}
	for name, want := range map[string]string{
		"GOGC":             "GOGC: 100 (OLD), 25 (NEW)",
		"GOMEMLIMIT":       "GOMEMLIMIT: off (OLD), 64MB (NEW)",
		"key distribution": "key distribution: default (OLD), zipfian (NEW)",
		"Go version":       "Go version: go1.26.0 (OLD), go1.26.1 (NEW)",
	} {
		if s, ok := got[name]; !ok || s.String() != want {
			t.Errorf("setting %s: %+v, want %q", name, s, want)
		}
	}
	if len(got) != 4 {
		t.Errorf("settings %+v, want exactly 4", rep.Settings)
	}
	if s := got["GOGC"]; len(s.Rows) != 1 || s.Rows[0] != "matrix/heap/100B" || got["Go version"].Rows != nil {
		t.Errorf("GOGC rows %q, Go version rows %q", s.Rows, got["Go version"].Rows)
	}
	if len(rep.Failures()) != 0 || len(rep.Missings()) != 2 {
		t.Errorf("failures %+v, missing %+v", rep.Failures(), rep.Missings())
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	gogc, alpha := strings.Index(out, "GOGC: 100 (OLD), 25 (NEW)  [matrix/heap/100B]"), strings.Index(out, "alpha ")
	if gogc < 0 || alpha < gogc || !strings.Contains(out, "differ: Go version, GOGC, GOMEMLIMIT, key distribution") ||
		!strings.Contains(out, "kinds run: arena, heap (OLD), heap (NEW)") {
		t.Errorf("text:\n%s", out)
	}
	if rep.Rows[0].Message() != "matrix/heap/100B MB/s +0.0% (n=1, no p-value) across different settings: Go version, GOGC, GOMEMLIMIT, key distribution" {
		t.Errorf("message %q", rep.Rows[0].Message())
	}
}

// TestSettingsSame: two runs of the same settings say so, and their rows
// have no settings column.
func TestSettingsSame(t *testing.T) {
	dir := t.TempDir()
	a := folder(t, dir, "a", "go1.26.0", "", scenario("heap", 100))
	b := folder(t, dir, "b", "go1.26.0", "", scenario("heap", 100))
	rep, err := Dirs(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil || len(rep.Settings) != 0 || !strings.Contains(out.String(), "settings: the same on both sides") ||
		strings.Contains(out.String(), "differ") {
		t.Errorf("settings %+v (%v):\n%s", rep.Settings, err, out.String())
	}
}

// TestSettingsUnknown: a folder without summary.json, or with one that
// cannot be read, is compared on bench.txt, and the report says whose
// settings it does not know; bench.txt's Go version still differs.
func TestSettingsUnknown(t *testing.T) {
	dir := t.TempDir()
	a := folder(t, dir, "a", "go1.26.0", "none", scenario("heap", 100))
	b := folder(t, dir, "b", "go1.26.1", "not json", scenario("heap", 25))
	rep, err := Dirs(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"OLD's settings are unknown beyond bench.txt's configuration lines: it has no summary.json",
		"NEW's settings are unknown beyond bench.txt's configuration lines: its summary.json could not be read",
		"Go version: go1.26.0 (OLD), go1.26.1 (NEW)  [every row]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "GOGC") {
		t.Errorf("GOGC compared without a summary:\n%s", out.String())
	}
}

// TestSettingsCapacitySteps: a capacity search's steps differ in rate and
// keys by design; two searches alike name no setting.
func TestSettingsCapacitySteps(t *testing.T) {
	step := func(rate float64) results.Scenario {
		s := scenario("heap", 100)
		s.Group, s.Rate, s.Keys, s.Name = results.SetCapacity, rate, int64(rate*6), fmt.Sprintf("capacity/heap/100B@%g", rate)
		return s
	}
	old := Side{Bench: &File{Path: "o"}, Summary: &results.Summary{Results: []results.Result{{Scenario: step(1000)}, {Scenario: step(2000)}}}}
	new := Side{Bench: &File{Path: "n"}, Summary: &results.Summary{Results: []results.Result{{Scenario: step(1500)}}}}
	k := Key{Set: results.SetCapacity, Kind: "heap", Value: 100}
	if d := settingsDiff(old, new, []Key{k}); len(d) != 0 {
		t.Errorf("capacity steps: %+v", d)
	}
}

// TestNoCommonNamesSettings: two runs with no scenario in common are bad
// input, and the error says what each ran.
func TestNoCommonNamesSettings(t *testing.T) {
	dir := t.TempDir()
	mixA, mixB := scenario("heap", 100), scenario("heap", 100)
	mixA.Mix, mixB.Mix = "a", "b"
	_, err := Dirs(folder(t, dir, "a", "go1.26.0", "", mixA), folder(t, dir, "b", "go1.26.0", "", mixB), Options{})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(fmt.Sprint(err), "scenario sets run: mix-a (OLD), mix-b (NEW)") {
		t.Errorf("err %v", err)
	}
}
