package benchgate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestMDCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"BenchmarkA-2", "`BenchmarkA-2`"},
		{"Benchmark`x`", "`` Benchmark`x` ``"},
		{"a``b", "```a``b```"},
		{"`", "`` ` ``"},
		{"a|b", "`a\\|b`"},
		{"a\nb", "`a b`"},
		{"", "`  `"},
	} {
		if got := mdCode(tc.in); got != tc.want {
			t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// stripCodeSpans removes the code spans of a line as CommonMark reads them
// (a run of n backticks up to the next run of exactly n), and fails on a
// backtick run left open.
func stripCodeSpans(t *testing.T, line string) string {
	t.Helper()
	var out strings.Builder
	for i := 0; i < len(line); {
		if line[i] == '\\' && i+1 < len(line) {
			out.WriteString(line[i : i+2])
			i += 2
			continue
		}
		if line[i] != '`' {
			out.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		j := i + n
		closed := false
		for j < len(line) {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				closed = true
				j += m
				break
			}
			j += m
		}
		if !closed {
			t.Errorf("unclosed code span in %q", line)
			return out.String()
		}
		i = j
	}
	return out.String()
}

// A benchmark name, a unit, a note, an acceptance reason and a file name
// holding backticks, HTML, Markdown syntax and absolute paths reach the
// Markdown report as text: every code span closes where it should, no raw
// HTML or heading starts, no table row breaks, no local path appears.
func TestMarkdownEscapesUserText(t *testing.T) {
	evil := "BenchmarkX/name=`<script>alert(1)</script>|b-2"
	rep := &Report{
		BaseFiles: []string{"/home/user/secret/base.txt"},
		HeadFiles: []string{"results/head.txt"},
		Info:      []string{"base revision: # not a heading <b>bold</b>"},
		Rows: []Row{{
			Key: Key{Name: evil, Unit: "<img src=x>/op"}, Base: 1, Head: 2, Delta: 1, P: 0.001, NBase: 10, NHead: 10,
			Verdict: Accepted, Note: "accepted: ``` [link](javascript:x) **bold** & <script>", ThresholdFrom: "calibrated /tmp/th/thresholds.txt", Threshold: 0.1,
		}},
		Notes: []string{"/home/user/repo/accepted.txt:4: accepted regression \"<script>\" matched no regression"},
		Profiles: []ProfileDiff{{Benchmark: evil, SampleType: SampleCPU, Err: "open /tmp/benchgate-out-1/profiles/x.pprof: <b>"},
			{Benchmark: evil, SampleType: SampleCPU, Funcs: []FuncCost{{Func: "main.`f`<i>", HeadFlat: 2, HeadCum: 2}}}},
		Options: Options{Alpha: 0.01, Threshold: 0.1},
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, bad := range []string{"/home/", "/tmp/", "secret"} {
		if strings.Contains(out, bad) {
			t.Errorf("report holds the local path %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"base.txt", "results/head.txt", "thresholds.txt", "accepted.txt:4"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "### benchgate:") {
			t.Errorf("a heading was forged: %q", line)
		}
		text := stripCodeSpans(t, line)
		if strings.Contains(text, "<") {
			t.Errorf("raw HTML outside code spans: %q (from %q)", text, line)
		}
		if strings.Contains(line, "10/10") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 12 {
			t.Errorf("row with a broken cell count: %q", line)
		}
	}
	if !strings.Contains(out, "``BenchmarkX/name=`<script>alert(1)</script>\\|b-2``") {
		t.Errorf("the name is not one code span with a longer fence:\n%s", out)
	}
}

// `go test -json` output without benchmark results says so (ErrTestJSON,
// asking whether the benchmarks ran); other JSON is no benchmark file.
func TestTest2JSONInput(t *testing.T) {
	in := `{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"example.com/m"}
{"Time":"2026-01-01T00:00:01Z","Action":"output","Package":"example.com/m","Output":"PASS\n"}
`
	_, err := Parse(strings.NewReader(in), "bench.json")
	if !errors.Is(err, ErrNoBenchmarks) || !errors.Is(err, ErrTestJSON) || !strings.Contains(err.Error(), "-bench") {
		t.Errorf("err = %v, want ErrNoBenchmarks and ErrTestJSON asking for -bench", err)
	}
	_, err = Parse(strings.NewReader("{\"x\": 1}\n"), "other.json")
	if !errors.Is(err, ErrNoBenchmarks) || errors.Is(err, ErrTestJSON) {
		t.Errorf("other JSON: err = %v, want ErrNoBenchmarks only", err)
	}
}

// AcceptLineFormat, which the CLI's help prints, is the grammar the parser
// takes: each of its expiry forms, filled in, parses, and the old help's
// `REGEXP reason` does not.
func TestAcceptLineFormatMatchesParser(t *testing.T) {
	f := strings.Fields(AcceptLineFormat)
	if len(f) != 3 || f[0] != "REGEXP" || f[2] != "reason" {
		t.Fatalf("AcceptLineFormat %q: want REGEXP EXPIRY reason", AcceptLineFormat)
	}
	fill := strings.NewReplacer("YYYY-MM-DD", "2099-12-31", "=N", "=5")
	for _, expiry := range strings.Split(f[1], "|") {
		line := "^BenchmarkA$ " + fill.Replace(expiry) + " a reason"
		if acc, err := ParseAccepted(strings.NewReader(line+"\n"), "acc.txt"); err != nil || len(acc) != 1 {
			t.Errorf("%q (from the format's %q): %v", line, expiry, err)
		}
	}
	if _, err := ParseAccepted(strings.NewReader("^BenchmarkA$ a reason\n"), "acc.txt"); !errors.Is(err, errAcceptFile) {
		t.Errorf("REGEXP reason without expiry: %v, want errAcceptFile", err)
	}
}

// The stream of a run: result lines and their iteration counts are picked
// out, a long junk line is not kept whole, and the limit stops the run.
func TestRunOutputStream(t *testing.T) {
	var file bytes.Buffer
	cancelled := false
	o := newRunOutput(&file, 1<<20, func() { cancelled = true })
	junk := strings.Repeat("x", 200<<10)
	in := "goos: linux\nBenchmarkA-2 \t 100\t 12 ns/op\n" + junk + "\nBenchmarkB-2 \t" + "noise\n" + "BenchmarkA-2 \t 200\t 11 ns/op\n"
	for i := 0; i < len(in); i += 1000 {
		if _, err := o.Write([]byte(in[i:min(i+1000, len(in))])); err != nil {
			t.Fatal(err)
		}
	}
	if file.String() != in {
		t.Error("the output file differs from the stream")
	}
	if len(o.results) != 2 || o.results[0] != (benchLine{"BenchmarkA-2", 200}) || o.results[1].name != "BenchmarkB-2" {
		t.Errorf("results %+v, want BenchmarkA-2 (200, its last) and BenchmarkB-2", o.results)
	}
	if cap(o.line) > 2*DefaultMaxLineBytes || len(o.tail.buf) > 2*tailBytes {
		t.Errorf("kept %d bytes of line and %d of tail", cap(o.line), len(o.tail.buf))
	}
	if _, err := o.Write(make([]byte, 1<<20)); !errors.Is(err, ErrOutputTooLarge) || !o.exceeded || !cancelled {
		t.Errorf("past the limit: %v (exceeded %v, cancelled %v), want ErrOutputTooLarge and the run cancelled", err, o.exceeded, cancelled)
	}
}
