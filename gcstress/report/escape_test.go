package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
)

// Hostile text a user's engine can put in front of the reports: its kind
// name, a note key, and a Put error (through the end line, the exit and
// the verdict).
const (
	evilKind = "\x1b[2J<script>alert(1)</script>|# x"
	evilNote = "hits\x1b]0;owned\x07|`code`"
	evilErr  = "boom\n## Forged heading\n| a | b |\n<img src=x onerror=alert(1)> \u202eevil"
)

// hostileSummary is fixedSummary with the hostile names and errors in a
// matrix scenario and a failure scenario.
func hostileSummary(t *testing.T) *results.Summary {
	sum := fixedSummary(t)
	sum.Command = "gcstress -kinds `" + evilKind + "`"
	sum.CPUModel = "cpu\u009b2J\x7f\u202e"
	for i := range sum.Results {
		r := &sum.Results[i]
		switch r.Scenario.Group {
		case results.SetMatrix:
			if r.Scenario.Kind != "heap" {
				continue
			}
			r.Scenario.Kind, r.Scenario.Name = evilKind, evilKind+"/10B"
			if r.End != nil {
				e := *r.End
				e.Notes = map[string]float64{evilNote: 1}
				r.End = &e
			}
		default:
			r.Scenario.Name = "failure/" + evilKind
			r.Verdict.Class, r.Verdict.Why = results.Failed, "the child died ("+evilErr+")"
			r.Exit.Died, r.Exit.Message = true, "error: "+evilErr
		}
	}
	return sum
}

// TestTerminalReportsEscapeControls: no report for the terminal carries a
// control character other than newline from a name, note or error; each
// shows as a visible escape.
func TestTerminalReportsEscapeControls(t *testing.T) {
	sum := hostileSummary(t)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"table": func(b *bytes.Buffer) error { return WriteTable(b, sum) },
		"ycsb":  func(b *bytes.Buffer) error { return WriteYCSB(b, sum) },
		"pe":    func(b *bytes.Buffer) error { return WritePE(b, sum) },
		"json":  func(b *bytes.Buffer) error { return WriteTerminal(b, string(FormatJSON), sum) },
		"progress": func(b *bytes.Buffer) error {
			pr := view.New(b, len(sum.Results))
			for i, r := range sum.Results {
				pr.Start(i, r.Scenario)
				pr.Done(r)
			}
			return nil
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if i := strings.IndexFunc(out, func(r rune) bool { return (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x202e }); i >= 0 {
			t.Errorf("%s: control %q at %d: %q", name, out[i], i, out[max(0, i-40):min(len(out), i+40)])
		}
		if !strings.Contains(out, `\x1b[2J`) && !(name == "json" && strings.Contains(out, `\u001b[2J`)) {
			t.Errorf("%s: the kind's escape is not shown as \\x1b", name)
		}
		if strings.Contains(out, "\n## Forged heading") {
			t.Errorf("%s: the Put error's newline reached the terminal", name)
		}
	}
}

// TestMarkdownReportEscapes: in report.md a hostile name, note or error
// adds no HTML, heading, or table cell, and no control character.
func TestMarkdownReportEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, hostileSummary(t), []string{"throughput.png"}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if i := strings.IndexFunc(md, func(r rune) bool { return (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == 0x202e }); i >= 0 {
		t.Fatalf("control %q in report.md at %d", md[i], i)
	}
	unescaped := regexp.MustCompile(`(^|[^\\])[<>]`)
	cell := regexp.MustCompile(`(^|[^\\])\|`)
	headings := 0
	width := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") {
			headings++
		}
		if !strings.HasPrefix(line, "|") {
			width = 0
			if strings.HasPrefix(line, "- command: ") {
				continue // a code span: < and > are text there
			}
			if unescaped.MatchString(line) && !strings.Contains(line, "GC CPU < ") {
				t.Errorf("unescaped < or > in %q", line)
			}
			continue
		}
		n := len(cell.FindAllString(line, -1))
		if width == 0 {
			width = n
		} else if n != width {
			t.Errorf("table row with %d cells, header %d: %q", n-1, width-1, line)
		}
	}
	var plain bytes.Buffer
	if err := WriteMarkdown(&plain, fixedSummary(t), []string{"throughput.png"}); err != nil {
		t.Fatal(err)
	}
	if want := strings.Count("\n"+plain.String(), "\n#"); headings != want {
		t.Errorf("%d headings, want the report's own %d", headings, want)
	}
	for _, want := range []string{`\<script\>`, `\\x1b\[2J`, "`` gcstress -kinds `\\x1b[2J<script>", `\\x0a## Forged heading`, "hits\\\\x1b\\]0;owned\\\\x07\\|\\`code\\`"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks the escaped form %q", want)
		}
	}
}
