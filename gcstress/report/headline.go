package report

import (
	"fmt"

	"github.com/writegc/writegc/gcstress/results"
)

// The headline: the one line every report opens with, which a user can
// act on: which layout costs the collector least, by roughly how much, and
// why ("arena costs the collector least: 0.72 GC CPU-s per GB written
// against heap's 14.2 (about 20x), because its entries hold no Go pointers
// (~0 heap objects per entry against heap's 2.01, which the collector
// marks every cycle)"). It ranks the kinds by GC CPU-s per GB, medians
// over each kind's runs outside the capacity search (openingKinds), and
// only those that rest on enough GC cycles (resolve.go): a kind whose runs
// do not is named as unmeasured, and when none does the line says the run
// is inconclusive and how to get an answer. Two kinds within tieRatio (or
// gcFloor) cost about the same.

// headline is the report's first line ("" without a kind that ran); kind
// names go through esc.
func headline(sum *results.Summary, esc func(string) string) string {
	ks := openingKinds(sum.Results)
	if len(ks) == 0 {
		return ""
	}
	var measured []int
	var few, none []string // kinds whose cost rests on too few cycles; kinds without a cost
	for i, k := range ks {
		switch {
		case k.hasGC:
			measured = append(measured, i)
		case k.noCycle:
			few = append(few, esc(k.kind))
		default:
			none = append(none, esc(k.kind))
		}
	}
	tail := ""
	if len(few) > 0 && len(measured) > 0 {
		tail = fmt.Sprintf("; %s: GC CPU %s, not ranked", joinAnd(few), fewCycles())
	}
	if len(none) > 0 && len(measured) > 0 {
		tail += fmt.Sprintf("; %s: no cost figures, not ranked", joinAnd(none))
	}
	if len(measured) == 0 && len(few) == 0 {
		return "Inconclusive: no kind's runs left a GC cost figure (none ended its load normally)."
	}
	switch len(measured) {
	case 0:
		return fmt.Sprintf("Inconclusive: no kind completed enough GC cycles (at least %d in its measured windows) to say what it costs the collector; "+
			"run longer or with more keys.", results.MinCostCycles)
	case 1:
		k := ks[measured[0]]
		if len(ks) == 1 {
			return fmt.Sprintf("%s costs the collector %s GC CPU-s per GB written%s.", esc(k.kind), figure(k.gcPerGB), mechanism(k))
		}
		return fmt.Sprintf("%s is the only kind measured: %s GC CPU-s per GB written%s; run longer or with more keys to rank the others.",
			esc(k.kind), figure(k.gcPerGB), tail)
	}
	lo, hi := measured[0], measured[0]
	for _, i := range measured {
		if ks[i].gcPerGB < ks[lo].gcPerGB {
			lo = i
		}
		if ks[i].gcPerGB > ks[hi].gcPerGB {
			hi = i
		}
	}
	c, h := ks[lo], ks[hi]
	if sameGC(c.gcPerGB, h.gcPerGB) {
		who := esc(c.kind) + " and " + esc(h.kind)
		if len(measured) > 2 {
			who = fmt.Sprintf("All %d kinds measured", len(measured))
		}
		return fmt.Sprintf("%s cost the collector about the same: %s to %s GC CPU-s per GB written%s.", who, figure(c.gcPerGB), figure(h.gcPerGB), tail)
	}
	ratio := ""
	if c.gcPerGB > 0 {
		ratio = fmt.Sprintf(" (about %s)", ratioText(h.gcPerGB/c.gcPerGB))
	}
	most := ""
	if len(measured) > 2 {
		most = ", the most"
	}
	return fmt.Sprintf("%s costs the collector least: %s GC CPU-s per GB written against %s's %s%s%s%s%s.",
		esc(c.kind), figure(c.gcPerGB), esc(h.kind), figure(h.gcPerGB), most, ratio, because(c, h, esc), tail)
}

// mechanism is why one kind costs what it does: its objects per entry
// and what the collector does with them ("" without a footprint).
func mechanism(k openingKind) string {
	switch {
	case !k.hasObj:
		return ""
	case k.objects < pointerFree:
		return fmt.Sprintf(", holding %s heap objects per entry: its entries hold no Go pointers", objectsText(k.objects))
	}
	return fmt.Sprintf(", holding %s heap objects per entry, which the collector marks every cycle", objectsText(k.objects))
}

// because is why the cheaper kind c costs less than h, as far as their
// layouts say: c's entries hold no Go pointers where h's are objects, or
// c holds fewer objects per entry; or that their layouts do not explain
// it. "" without both footprints.
func because(c, h openingKind, esc func(string) string) string {
	if !c.hasObj || !h.hasObj {
		return ""
	}
	than := fmt.Sprintf("%s heap objects per entry against %s's %s", objectsText(c.objects), esc(h.kind), objectsText(h.objects))
	switch {
	case c.objects < pointerFree && h.objects >= pointerFree:
		return fmt.Sprintf(", because its entries hold no Go pointers (%s, which the collector marks every cycle)", than)
	case objectsResolved(h.objects) && c.objects < h.objects && !tied(max(c.objects, 1e-9), h.objects):
		return fmt.Sprintf(", because it holds fewer heap objects per entry (%s)", than)
	}
	return fmt.Sprintf("; their layouts do not explain it (%s): the difference may be this run's", than)
}
