package escape

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for _, tc := range []struct{ in, want, text string }{
		{"heap/10B", "heap/10B", "heap/10B"},
		{"\x1b[2Jgone", `\x1b[2Jgone`, `\x1b[2Jgone`},
		{"a\nb\tc\r", `a\x0ab\x09c\x0d`, "a\nb\tc\\x0d"},
		{"\x00\x07\x7f", `\x00\x07\x7f`, `\x00\x07\x7f`},
		{"csi\u009b31m", `csi\u009b31m`, `csi\u009b31m`},
		{"abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"µs ünïcode ok", "µs ünïcode ok", "µs ünïcode ok"},
	} {
		if got := Terminal(tc.in); got != tc.want {
			t.Errorf("Terminal(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := TerminalText(tc.in); got != tc.text {
			t.Errorf("TerminalText(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
}

// TestTerminalLeavesNoControl: whatever the input, the output is valid
// UTF-8 with no control, C1 or bidi character.
func TestTerminalLeavesNoControl(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	all.WriteString("\xff\xfe\xc3")
	for _, out := range []string{Terminal(all.String()), Markdown(all.String())} {
		if !utf8.ValidString(out) {
			t.Fatal("invalid UTF-8 left")
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || isC1(r) || isBidi(r) {
				t.Fatalf("%U left in the output", r)
			}
		}
	}
}

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"arena/1KB", "arena/1KB"},
		{"<script>alert(1)</script>", `\<script\>alert(1)\</script\>`},
		{"a|b", `a\|b`},
		{"# forged heading", `\# forged heading`},
		{"line\n## two", `line\\x0a## two`},
		{"`code` & [link](x) **b**", "\\`code\\` \\& \\[link\\](x) \\*\\*b\\*\\*"},
		{`back\|slash`, `back\\\|slash`},
		{"GC CPU >= 25%", `GC CPU \>= 25%`},
	} {
		if got := Markdown(tc.in); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"gcstress -quick", "`gcstress -quick`"},
		{"a`b", "``a`b``"},
		{"``x", "``` ``x ```"},
		{"x`", "`` x` ``"},
		{"esc \x1b[2J", "`esc \\x1b[2J`"},
		{"  ", "`  `"},
		{"", "` `"},
	} {
		if got := MarkdownCode(tc.in); got != tc.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNoAllocWhenSafe(t *testing.T) {
	s := "heap/10B, GC CPU 9.6% µs"
	if n := testing.AllocsPerRun(100, func() { _ = Terminal(s); _ = Markdown(s) }); n != 0 {
		t.Fatalf("%v allocations for text that needs no escaping", n)
	}
}

// TestJSON: the escaped JSON decodes to the same value, and holds no raw
// DEL, C1 or bidi control.
func TestJSON(t *testing.T) {
	in := map[string]string{"kind\u009b31m": "a\x7fb\u202ec\x1b", "plain": "µs"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || len(back) != 2 || back["kind\u009b31m"] != in["kind\u009b31m"] {
		t.Fatalf("%s decodes to %q (%v)", out, back, err)
	}
	for _, r := range string(out) {
		if r < 0x20 || r == 0x7f || isC1(r) || isBidi(r) {
			t.Fatalf("%U left in %s", r, out)
		}
	}
	plain := []byte(`{"a":"µs"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied input that needs no escaping")
	}
}
