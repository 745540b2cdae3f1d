package benchgate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// rounds returns ten values around v (within 2%).
func rounds(v float64) []float64 {
	out := make([]float64, 10)
	for i := range out {
		out[i] = v * (1 + float64(i%3)/100)
	}
	return out
}

// Confirm keeps a row that regresses again (Confirmed, the rerun's figures
// in its note) and passes one that does not (Unconfirmed, the first
// figures kept): the report fails only on the confirmed one, and passes
// when none is confirmed.
func TestReportConfirm(t *testing.T) {
	first := func() *Report {
		base := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": rounds(100), "BenchmarkNoisy-2": rounds(100), "BenchmarkSlow-2": rounds(100)})
		head := spreadSet("ns/op", map[string][]float64{"BenchmarkQuiet-2": rounds(100), "BenchmarkNoisy-2": rounds(130), "BenchmarkSlow-2": rounds(130)})
		rep, err := Compare(base, head, Options{Rounds: 10})
		if err != nil || rep.Count(Regressed) != 2 {
			t.Fatalf("first rounds: %v, %d regressed", err, rep.Count(Regressed))
		}
		return rep
	}
	rep := first()
	// The rerun holds only the regressed benchmarks: Noisy-2 is back to 100, Slow-2 still 130.
	rb := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": rounds(100), "BenchmarkSlow-2": rounds(100)})
	rh := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": rounds(101), "BenchmarkSlow-2": rounds(131)})
	if err := rep.Confirm(rb, rh); err != nil {
		t.Fatal(err)
	}
	q, n, s := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	if q.Verdict != Unchanged || q.Confirm != NotRerun {
		t.Errorf("quiet row %+v: want unchanged, not rerun", q)
	}
	if n.Verdict != Unconfirmed || n.Confirm != NotConfirmed || n.Delta < 0.29 || !strings.Contains(n.Note, "regressed in the first rounds; rerun: +1.") {
		t.Errorf("row not regressing again %+v: want not confirmed, the first +30%% kept, the rerun in the note", n)
	}
	if s.Verdict != Regressed || s.Confirm != Confirmed || !strings.HasPrefix(s.Note, "confirmed on rerun: +31.00%, p=") {
		t.Errorf("row regressing again %+v: want regressed, confirmed on rerun", s)
	}
	if !rep.Regressed() || !strings.Contains(rep.Summary(), "FAIL (3 compared, 1 regressed, 1 not confirmed;") {
		t.Errorf("summary %q: want FAIL with 1 regressed, 1 not confirmed", rep.Summary())
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"REGRESSED (confirmed on rerun: +31.00%", "not confirmed (regressed in the first rounds; rerun: +1.", "1 row(s) confirmed, 1 not confirmed"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	// Neither regresses again: the report passes.
	rep = first()
	if err := rep.Confirm(rb, rb); err != nil || rep.Regressed() || !strings.HasPrefix(rep.Summary(), "benchgate: PASS") {
		t.Errorf("nothing confirmed: %v, summary %q; want PASS", err, rep.Summary())
	}

	// A rerun missing rounds is an error, and the rows stay regressed.
	rep = first()
	short := spreadSet("ns/op", map[string][]float64{"BenchmarkNoisy-2": rounds(100)[:7], "BenchmarkSlow-2": rounds(100)})
	if err := rep.Confirm(rb, short); !errors.Is(err, ErrMissingRounds) || rep.Count(Regressed) != 2 {
		t.Errorf("rerun missing rounds: %v, %d regressed; want ErrMissingRounds, both still regressed", err, rep.Count(Regressed))
	}
}

// In instruction mode the confirming rerun measures only the regressed leaf
// again, under (a fake) callgrind, Count rounds a side, and Confirm keeps
// the regression it repeats.
func TestConfirmInstructionsFake(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := gitModuleDir(t)
	vg := t.TempDir() + "/valgrind"
	if err := os.WriteFile(vg, []byte(fakeValgrind), 0o755); err != nil {
		t.Fatal(err)
	}
	commitBaseHead(t, dir, func() { writeWorkModule(t, dir, 1000) }, func() { writeWorkModule(t, dir, 1030) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var selected []string
	res, err := Run(ctx, RunConfig{Dir: dir, Base: "HEAD~1", Head: "HEAD", Count: DefaultInstructionCount,
		Measure: MeasureInstructions, Valgrind: vg, Jobs: 2, OutDir: t.TempDir(),
		Targets: []Target{{Pkg: ".", Bench: "BenchmarkW", Benchtime: "40x"}},
		ConfirmSelect: func(base, head *Set) []string {
			rep, _ := Compare(base, head, Options{})
			for _, row := range rep.Rows {
				if row.Verdict == Regressed && !slices.Contains(selected, row.Name) {
					selected = append(selected, row.Name)
				}
			}
			return selected
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(selected, []string{"BenchmarkW/k=a"}) || !slices.Equal(res.Confirmed, selected) || res.ConfirmHead == nil {
		t.Fatalf("selected %q, rerun %q: want BenchmarkW/k=a alone", selected, res.Confirmed)
	}
	raw, err := os.ReadFile(res.ConfirmHeadFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "BenchmarkW/k=a\t40\t1030 instructions/op"); n != DefaultInstructionCount || strings.Contains(string(raw), "k=b") ||
		!strings.Contains(string(raw), "measure: instructions\n") {
		t.Errorf("confirm-head.txt: %d lines of k=a, want %d, no k=b, the header:\n%s", n, DefaultInstructionCount, raw)
	}
	rep, err := Compare(res.Base, res.Head, Options{Rounds: DefaultInstructionCount})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Confirm(res.ConfirmBase, res.ConfirmHead); err != nil {
		t.Fatal(err)
	}
	if row := findRow(t, rep, UnitInstructions); row.Verdict != Regressed || row.Confirm != Confirmed {
		t.Errorf("instructions/op row %+v: want regressed, confirmed on rerun", row)
	}
}
