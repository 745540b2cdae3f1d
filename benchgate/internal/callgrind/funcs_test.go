package callgrind

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// profileOut is a hand-written output in callgrind's format with name
// compression: main calls work twice (the calls= lines' costs are inclusive,
// not main's own), work is defined on a cfn= line and referred to by id on
// its own fn= line, and a second fn= section of main adds to its counts.
const profileOut = `# callgrind format
version: 1
creator: callgrind-3.19.0
cmd:  ./x.test -test.run=^$ -test.bench=^BenchmarkX$
part: 1
desc: I1 cache: 32768 B, 64 B, 8-way associative
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 1000 200 100 7 20 5 3 4 2

ob=(1) /tmp/x.test
fl=(1) /src/x.go
fn=(3) example.com/x.main
10 5 2 1
+1 7
cfi=(2) /src/w.go
cfn=(4) example.com/x.work
calls=2 20
* 400 10
jump=1 +3
-1 3

fl=(2)
fn=(4)
20 300 5
+2 100
fi=(1)
12 50
fe=(2)
* 10

fl=(1)
fn=(3)
30 1

totals: 1000 200 100 7 20 5 3 4 2
`

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile(strings.NewReader(profileOut))
	if err != nil {
		t.Fatal(err)
	}
	if p.Counts["Ir"] != 1000 || p.Counts.D1Misses() != 25 {
		t.Fatalf("totals %v", p.Counts)
	}
	want := map[string]FuncCost{
		"example.com/x.main": {Self: 5 + 7 + 3 + 1, Incl: 5 + 7 + 400 + 3 + 1},
		"example.com/x.work": {Self: 300 + 100 + 50 + 10, Incl: 460},
	}
	if len(p.Funcs) != len(want) {
		t.Fatalf("funcs %v, want %v", p.Funcs, want)
	}
	for name, w := range want {
		if got := p.Funcs[name]; got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
}

// TestParseProfileInstrPositions: with "positions: instr line" a cost line
// has two position columns before the counts.
func TestParseProfileInstrPositions(t *testing.T) {
	in := "positions: instr line\nevents: Ir D1mr\nfn=(1) f\n0x401000 10 42 1\n+4 * 8\ntotals: 50 1\n"
	p, err := ParseProfile(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Funcs["f"].Self; got != 50 {
		t.Fatalf("self %d, want 50", got)
	}
}

// TestParseProfileSkipsUnknownLines: lines the parser does not know are
// skipped, whatever they hold.
func TestParseProfileSkipsUnknownLines(t *testing.T) {
	in := "events: Ir\nfrobnicate: yes\nob=(1) a\nxyz=(9)\n%%% junk\nfn=f\n1 5\nthread: 1\ntotals: 5\n"
	p, err := ParseProfile(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Funcs["f"].Self != 5 {
		t.Fatalf("funcs %v", p.Funcs)
	}
}

// TestParseProfileRefuses: hostile or broken files are errors, never
// partial counts, and the limits hold before anything is kept.
func TestParseProfileRefuses(t *testing.T) {
	huge := "events: Ir\nfn=" + strings.Repeat("x", MaxLineBytes+1) + "\ntotals: 1\n"
	var manyFuncs strings.Builder
	manyFuncs.WriteString("events: Ir\n")
	for i := range MaxFuncs + 1 {
		fmt.Fprintf(&manyFuncs, "fn=f%d\n", i)
	}
	var manyNames strings.Builder
	manyNames.WriteString("events: Ir\n")
	for i := range MaxNames + 1 {
		fmt.Fprintf(&manyNames, "cfn=(%d) g\n", i)
	}
	for name, tc := range map[string]struct {
		in   string
		want error
	}{
		"huge line":            {huge, ErrTooLarge},
		"too many functions":   {manyFuncs.String(), ErrTooLarge},
		"too many names":       {manyNames.String(), ErrTooLarge},
		"undefined reference":  {"events: Ir\nfn=(12)\n1 5\ntotals: 5\n", ErrBadFormat},
		"unclosed id":          {"events: Ir\nfn=(12 f\ntotals: 5\n", ErrBadFormat},
		"negative id":          {"events: Ir\nfn=(-3) f\ntotals: 5\n", ErrBadFormat},
		"huge id":              {"events: Ir\nfn=(99999999999999999999) f\ntotals: 5\n", ErrBadFormat},
		"cost before fn":       {"events: Ir\n1 5\ntotals: 5\n", ErrBadFormat},
		"cost not a number":    {"events: Ir\nfn=f\n1 5x\ntotals: 5\n", ErrBadFormat},
		"cost over 64 bits":    {"events: Ir\nfn=f\n1 99999999999999999999\ntotals: 5\n", ErrBadFormat},
		"bad positions":        {"positions: a b c d e\nevents: Ir\ntotals: 5\n", ErrBadFormat},
		"no totals":            {"events: Ir\nfn=f\n1 5\n", ErrNoTotals},
		"no events":            {"fn=f\ntotals: 5\n", ErrNoTotals},
		"totals without Ir":    {"events: D1mr\ntotals: 5\n", ErrNoTotals},
		"more totals than evs": {"events: Ir\ntotals: 5 6\n", ErrNoTotals},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := ParseProfile(strings.NewReader(tc.in))
			if !errors.Is(err, tc.want) || p != nil {
				t.Fatalf("ParseProfile = %v, %v; want %v", p, err, tc.want)
			}
		})
	}
}

// TestParseProfileRedefinedID: a compressed id defined again takes the new
// name (callgrind does not do it; the table must not grow for it).
func TestParseProfileRedefinedID(t *testing.T) {
	in := "events: Ir\nfn=(1) a\n1 2\nfn=(1) b\n1 3\nfn=(1)\n1 4\ntotals: 9\n"
	p, err := ParseProfile(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.Funcs["a"].Self != 2 || p.Funcs["b"].Self != 7 {
		t.Fatalf("funcs %v", p.Funcs)
	}
}

func TestFuncDiff(t *testing.T) {
	lo := &Profile{Funcs: map[string]FuncCost{"same": {100, 300}, "grew": {100, 100}, "gone": {40, 40}}}
	hi := &Profile{Funcs: map[string]FuncCost{"same": {100, 300}, "grew": {1100, 2100}, "new": {500, 500}}}
	d, err := FuncDiff(lo, hi, 2, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]FuncPerOp{"grew": {100, 200}, "new": {50, 50}, "gone": {-4, -4}}
	if len(d) != len(want) {
		t.Fatalf("diff %v, want %v", d, want)
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s: %v, want %v", k, d[k], v)
		}
	}
	if _, err := FuncDiff(lo, hi, 5, 5); err == nil {
		t.Error("equal op counts: no error")
	}
}
