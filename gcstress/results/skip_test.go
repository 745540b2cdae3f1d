package results

import (
	"strings"
	"testing"
)

// TestReadSamplesSkipsAndNamesBadLines: an over-long line (read to its end,
// not kept), a malformed line and a last line without its newline: the
// first two are skipped by number, blank lines are not counted, and the
// scenario around them is replayed whole.
func TestReadSamplesSkipsAndNamesBadLines(t *testing.T) {
	start := `{"type":"start","scenario":"a","proto":2,"spec":{"name":"a"}}`
	end := `{"type":"end","scenario":"a","t":1}`
	in := start + "\n\n" + strings.Repeat("y", MaxRecord+1) + "\n{\"type\":\n" + end // no final newline
	rs, skipped, err := ReadSamples(strings.NewReader(in), DefaultThresholds())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].End == nil {
		t.Fatalf("results %+v, want scenario a with its end line", rs)
	}
	if len(skipped) != 2 || skipped[0].Line != 3 || !strings.Contains(skipped[0].Why, "longer than") || skipped[1].Line != 4 || !strings.Contains(skipped[1].Why, "not a JSON sample") {
		t.Fatalf("skipped %+v, want lines 3 (long) and 4 (not JSON)", skipped)
	}
	w := SkipWarning("x/samples.jsonl", skipped)
	if !strings.HasPrefix(w, "x/samples.jsonl: 2 line(s) skipped") || strings.Contains(w, "\n") {
		t.Fatalf("warning %q", w)
	}
	many := make([]SkippedLine, maxNamedSkips+3)
	if w := SkipWarning("f", many); !strings.Contains(w, "and 3 more") {
		t.Fatalf("warning of %d skips: %q", len(many), w)
	}
	if SkipWarning("f", nil) != "" {
		t.Fatal("a warning without skipped lines")
	}
}

// TestPanicLine: the first "panic: " line of a stderr tail.
func TestPanicLine(t *testing.T) {
	if got := PanicLine("noise\npanic: boom\n\ngoroutine 1 [running]:\npanic: again\n"); got != "panic: boom" {
		t.Fatalf("PanicLine = %q", got)
	}
	if got := PanicLine("exit status 2\n"); got != "" {
		t.Fatalf("PanicLine without a panic = %q", got)
	}
}
