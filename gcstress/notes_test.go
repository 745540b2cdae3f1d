package gcstress

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// noteEngine is a mapEngine that is also a NoteEngine.
type noteEngine struct {
	mapEngine
	notes map[string]float64
}

func (e *noteEngine) Notes() map[string]float64 { return e.notes }

// TestEngineNotes: a NoteEngine's figures pass through the child's engine
// wrapper (an Engine without Notes gives nil) and survive the end line's
// JSON as engine_notes (report's TestEngineNotesSection renders them).
func TestEngineNotes(t *testing.T) {
	notes := map[string]float64{"accepted_writes": 19_000, "budget_bytes": 268435456, "hit_ratio": 0.41254}
	ce := &childEngine{Engine: &noteEngine{notes: notes}}
	if got := ce.Notes(); !maps.Equal(got, notes) {
		t.Fatalf("Notes() = %v, want %v", got, notes)
	}
	if got := (&childEngine{Engine: &mapEngine{}}).Notes(); got != nil {
		t.Fatalf("Notes() of a plain Engine = %v, want nil", got)
	}

	b, err := json.Marshal(Sample{Type: results.SampleEnd, Notes: notes})
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Notes map[string]float64 `json:"engine_notes"`
	}
	if err := json.Unmarshal(b, &back); err != nil || !maps.Equal(back.Notes, notes) {
		t.Fatalf("end line %s: engine_notes %v (%v)", b, back.Notes, err)
	}
}
