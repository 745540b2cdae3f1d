package history

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/writegc/writegc/benchgate"
)

var mdeBase = []float64{100, 101, 99, 102, 98, 100, 103, 97, 100, 101}
var mdeHead = []float64{110, 111, 109, 112, 108, 110, 113, 107, 110, 111}

// TestRecordPairMDE: a gate run's head point carries the run's MDE
// (benchgate.MDE of both sides' values); its base point and a plain record
// have none.
func TestRecordPairMDE(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openT(t, dsn)
		base := prep(t, benchFile("base1", t0, mdeBase...), Labels{Mode: ModeGate, RunID: "r1"})
		head := prep(t, benchFile("head1", t0.Add(time.Hour), mdeHead...), Labels{Mode: ModeGate, RunID: "r1"})
		if _, _, err := s.RecordPair(context.Background(), base, head); err != nil {
			t.Fatal(err)
		}
		want := benchgate.MDE(mdeBase, mdeHead, benchgate.DefaultAlpha, benchgate.DefaultPower)
		pts := find(t, load(t, s, Query{Mode: ModeGate}), "ns/op").Points
		if len(pts) != 2 || pts[0].HasMDE || !pts[1].HasMDE || math.Abs(pts[1].MDE-want) > 1e-12 || !(want > 0) {
			t.Errorf("points %+v: want the base without an MDE, the head with %g", pts, want)
		}
		record(t, s, benchFile("plain", t0.Add(2*time.Hour), mdeBase...), Labels{})
		if pts := find(t, load(t, s, Query{Mode: ModeBench}), "ns/op").Points; len(pts) != 1 || pts[0].HasMDE {
			t.Errorf("plain record: %+v, want no MDE", pts)
		}
	})
}

// TestMDEMigration: a database of schema version 2 (no mde column) is read
// by a reader without migrating (its points have no MDE), and a writer
// migrates it: the old points still have none, a new gate run's head has
// one.
func TestMDEMigration(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		old, err := open(ctx, dsn, Options{}, migrations[:mdeVersion-1])
		if err != nil {
			t.Fatal(err)
		}
		base := prep(t, benchFile("b1", t0, mdeBase...), Labels{Mode: ModeGate})
		head := prep(t, benchFile("h1", t0.Add(time.Hour), mdeHead...), Labels{Mode: ModeGate})
		if _, _, err := old.RecordPair(ctx, base, head); err != nil {
			t.Fatal(err)
		}
		old.Close()
		r := openOpts(t, dsn, Options{ReadOnly: true})
		if v, _ := r.SchemaVersion(ctx); v != mdeVersion-1 {
			t.Errorf("a reader migrated the database to %d", v)
		}
		if pts := find(t, load(t, r, Query{}), "ns/op").Points; len(pts) != 2 || pts[1].HasMDE || !pts[1].HasRatio {
			t.Errorf("version %d read: %+v, want the ratio and no MDE", mdeVersion-1, pts)
		}
		r.Close()
		w := openT(t, dsn)
		if v, _ := w.SchemaVersion(ctx); v != len(migrations) || v < mdeVersion {
			t.Errorf("migrated to %d, want %d", v, len(migrations))
		}
		base2 := prep(t, benchFile("b2", t0.Add(2*time.Hour), mdeBase...), Labels{Mode: ModeGate})
		head2 := prep(t, benchFile("h2", t0.Add(3*time.Hour), mdeHead...), Labels{Mode: ModeGate})
		if _, _, err := w.RecordPair(ctx, base2, head2); err != nil {
			t.Fatal(err)
		}
		pts := find(t, load(t, w, Query{}), "ns/op").Points
		if len(pts) != 4 || pts[1].HasMDE || !pts[3].HasMDE {
			t.Errorf("after migrating: %+v, want h1 without an MDE and h2 with one", pts)
		}
	})
}
