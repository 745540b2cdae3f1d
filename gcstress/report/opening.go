package report

import (
	"fmt"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/stat"
)

// The opening: every report (terminal, report.md, report.html) opens with
// one line a user can act on (headline.go), then one short paragraph that
// names every kind of the run (a user's registered engine too) against the
// lightest, with the mechanism: a kind with no Go pointers per entry
// against one whose entries are objects the collector marks every cycle.
// The lightest is the kind with the fewest heap objects per entry (a
// property of its layout, not of the machine), ties (two kinds at ~0
// included) going to the lower GC CPU per GB; exactly one kind is it.
// Figures read as resolve.go says: a kind none of whose runs rests on
// enough GC cycles reads fewCycles for its GC CPU, never 0; objects per
// entry below what a run resolves read ~0, and no ratio is given unless
// both figures are resolved. A kind whose bytes per entry are flagged has
// the figure it doubts named (inflatedText). Figures are medians over the
// kind's runs outside the capacity search.

// pointerFree is the objects per entry below which a kind's entries are
// not Go objects of their own: it holds them in a few large blocks.
const pointerFree = 0.5

// openingKind is one kind's figures for the opening paragraph.
type openingKind struct {
	kind             string
	objects, gcPerGB float64
	hasObj, hasGC    bool
	noCycle          bool
	doubt            string // inflatedText of its first flagged run; "" for none
}

// openingKinds gathers every kind's medians, in order of first appearance.
func openingKinds(rs []results.Result) []openingKind {
	var out []openingKind
	for _, kind := range kindsOf(rs) {
		k := openingKind{kind: kind}
		var objs, gcs []float64
		ran := false // a run outside the capacity search (whose steps the capacity sentences cover)
		for _, r := range rs {
			if r.Scenario.Kind == kind && r.Scenario.Group != results.SetCapacity {
				ran = true
			}
			e := r.End
			if r.Scenario.Kind != kind || r.Scenario.Group == results.SetCapacity || e == nil {
				continue
			}
			if e.Entries > 0 {
				objs = append(objs, e.ObjectsPerEntry)
			}
			if k.doubt == "" && flaggedFootprint(e, r.Scenario.Value) {
				k.doubt = inflatedText(e, r.Scenario.Value)
			}
			switch {
			case e.Cost == (results.Cost{}):
			case !e.CostResolved():
				k.noCycle = true
			default:
				gcs = append(gcs, e.GCCPUSPerGB)
			}
		}
		k.objects, k.hasObj = stat.MedianOr(objs, 0), len(objs) > 0
		k.gcPerGB, k.hasGC = stat.MedianOr(gcs, 0), len(gcs) > 0
		k.noCycle = k.noCycle && !k.hasGC
		if ran {
			out = append(out, k) // a kind without figures is named too (kindClause)
		}
	}
	return out
}

// cheapestKind is the index of the kind with the fewest objects per entry
// (ties within tieRatio or both ~0: the lower GC CPU per GB); -1 when no
// kind has a footprint.
func cheapestKind(ks []openingKind) int {
	best := -1
	for i, k := range ks {
		if !k.hasObj {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := ks[best]
		lower := k.objects < b.objects
		tiedObj := tied(min(k.objects, b.objects), max(k.objects, b.objects)) || !objectsResolved(k.objects) && !objectsResolved(b.objects)
		if tiedObj && k.hasGC && b.hasGC {
			lower = k.gcPerGB < b.gcPerGB
		}
		if lower {
			best = i
		}
	}
	return best
}

// openingParagraph is the paragraph ("" without a kind that has figures);
// kind names go through esc.
func openingParagraph(sum *results.Summary, esc func(string) string) string {
	ks := openingKinds(sum.Results)
	if len(ks) == 0 {
		return ""
	}
	c := cheapestKind(ks)
	if c < 0 {
		c = 0
	}
	cheap := ks[c]
	var b strings.Builder
	if len(ks) > 1 {
		fmt.Fprintf(&b, "%s's layout is the lightest of %d kinds: %s", esc(cheap.kind), len(ks), kindClause(cheap, nil))
	} else {
		fmt.Fprintf(&b, "%s: %s", esc(cheap.kind), kindClause(cheap, nil))
	}
	var others []string
	for i, k := range ks {
		if i != c {
			others = append(others, esc(k.kind)+" "+kindClause(k, &cheap))
		}
	}
	if len(others) > 0 {
		b.WriteString("; " + strings.Join(others, "; "))
	}
	b.WriteString(" (medians over each kind's runs).")
	return b.String()
}

// kindClause is one kind's figures and mechanism; against (nil for the
// lightest itself) adds the ratios to the lightest where both figures are
// resolved.
func kindClause(k openingKind, against *openingKind) string {
	var parts []string
	if k.hasObj {
		obj := fmt.Sprintf("holds %s heap objects per entry", objectsText(k.objects))
		switch {
		case against == nil || !against.hasObj:
		case !objectsResolved(k.objects) && !objectsResolved(against.objects):
			obj += " (both " + approxZero + ")"
		case objectsResolved(k.objects) && objectsResolved(against.objects) && !tied(against.objects, k.objects):
			obj += fmt.Sprintf(" (%s more)", ratioText(k.objects/against.objects))
		}
		if k.objects < pointerFree {
			obj += ", no Go pointers per entry"
		} else {
			obj += ", objects the collector marks every cycle"
		}
		parts = append(parts, obj)
	}
	switch {
	case k.hasGC:
		gc := fmt.Sprintf("costs %s GC CPU-s per GB written", figure(k.gcPerGB))
		if against != nil && against.hasGC && against.gcPerGB > 0 && k.gcPerGB > 0 && !tied(min(k.gcPerGB, against.gcPerGB), max(k.gcPerGB, against.gcPerGB)) {
			if k.gcPerGB > against.gcPerGB {
				gc += fmt.Sprintf(" (%s more)", ratioText(k.gcPerGB/against.gcPerGB))
			} else {
				gc += fmt.Sprintf(" (%s less: its GC CPU, unlike its layout, is this machine's)", ratioText(against.gcPerGB/k.gcPerGB))
			}
		}
		parts = append(parts, gc)
	case k.noCycle:
		parts = append(parts, "GC CPU "+fewCycles())
	}
	if len(parts) == 0 {
		parts = append(parts, "left no footprint or cost figures")
	}
	if k.doubt != "" {
		parts = append(parts, "its "+k.doubt+" (flagged: the entry count overstates what it holds)")
	}
	return joinAnd(parts)
}
