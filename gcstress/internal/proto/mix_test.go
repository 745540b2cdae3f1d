package proto

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPresetsSumToOne(t *testing.T) {
	for _, m := range Presets() {
		var s float64
		for _, v := range m.Share {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("mix %s: shares sum to %v", m.Name, s)
		}
	}
	if _, err := Parse("g"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Parse(g): %v", err)
	}
	if m, _ := Parse(""); !m.WriteOnly() || m.NeedsPreload() {
		t.Errorf("default mix %+v: want w, write only", m)
	}
}

// Pick's frequencies follow the shares (b: 95% reads), and the needs are
// the documented ones.
func TestPick(t *testing.T) {
	b, _ := Parse("b")
	r := rand.New(rand.NewPCG(1, 1))
	var n [NumOps]int
	const draws = 100_000
	for range draws {
		n[b.Pick(r.Float64())]++
	}
	if p := float64(n[Read]) / draws; math.Abs(p-0.95) > 0.01 {
		t.Errorf("mix b: %.3f reads, want 0.95", p)
	}
	if n[Scan]+n[Insert]+n[RMW] != 0 {
		t.Errorf("mix b picked %v", n)
	}
	e, _ := Parse("e")
	f, _ := Parse("f")
	if !e.NeedsScan() || e.NeedsGet() || !f.NeedsGet() || f.NeedsScan() {
		t.Errorf("needs: e %v/%v f %v/%v", e.NeedsGet(), e.NeedsScan(), f.NeedsGet(), f.NeedsScan())
	}
	if o := b.Pick(0.9999999999999999); o != Update {
		t.Errorf("Pick(just below 1) = %v", o)
	}
}
