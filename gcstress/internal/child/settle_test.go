package child

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/gcstress/results"
)

// ringStore keeps the last len(ring) values Put (copies: live heap), and
// reports off bytes off-heap. grow keeps every value instead (a store
// that never fills), each Put first sleeping pause.
type ringStore struct {
	nopEngine
	mu    sync.Mutex
	ring  [][]byte
	n     int
	grow  bool
	pause time.Duration
	off   int64
}

func (e *ringStore) Put(key, value []byte) error {
	if e.pause > 0 {
		time.Sleep(e.pause)
	}
	b := append([]byte(nil), value...)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.grow {
		e.ring = append(e.ring, b)
		return nil
	}
	e.ring[e.n%len(e.ring)] = b
	e.n++
	return nil
}

func (e *ringStore) Stats() EngineStats { return EngineStats{OffHeapBytes: e.off} }

// runEnd runs spec on eng as a child does and returns its end line.
func runEnd(t *testing.T, spec results.Scenario, eng Driven) results.Sample {
	t.Helper()
	var buf bytes.Buffer
	c := newChild(context.Background(), spec, eng, proto.NewStream(&buf, spec.Name, 0))
	defer c.cancel()
	if err := c.run(); err != nil {
		t.Fatal(err)
	}
	var end results.Sample
	for line := range strings.Lines(buf.String()) {
		var s results.Sample
		if json.Unmarshal([]byte(line), &s) == nil && s.Type == results.SampleEnd {
			end = s
		}
	}
	return end
}

// TestSettleSteady: a store that fills its ring settles (steady) long
// before its cap, with its off-heap bytes in the reading, and the load
// writes on after the settled keys; a store that keeps growing does not
// settle and its end line says so at its time cap.
func TestSettleSteady(t *testing.T) {
	spec := results.Scenario{Name: "settle", Kind: "ring", Value: 100, Keys: 1000, Writers: 2, Settle: time.Minute}
	end := runEnd(t, spec, &ringStore{ring: make([][]byte, 20000), off: 5 << 20})
	st := end.Settle
	if st == nil || !st.Steady || st.Why != "" || st.Records == 0 || st.Seconds >= 60 || st.Memory < 5<<20 || end.Keys != 1000 {
		t.Fatalf("ring: settle %+v, keys %d; want steady, records written, off-heap in the reading, 1000 keys after", st, end.Keys)
	}
	spec.Settle = 5 * time.Second
	end = runEnd(t, spec, &ringStore{grow: true, pause: 50 * time.Microsecond})
	if st := end.Settle; st == nil || st.Steady || !strings.Contains(st.Why, "did not settle: its time cap (-settle 5s)") || !strings.Contains(st.Why, "still grew") {
		t.Fatalf("growing: settle %+v; want not steady at its time cap, with its growth", st)
	}
}

// TestRunDoneEndsTheLoad: a run with a cycle target and a long cap ends
// soon after MinRun once its windows after the warm-up saw the cycles
// (a store that makes garbage), with reason duration.
func TestRunDoneEndsTheLoad(t *testing.T) {
	spec := results.Scenario{Name: "cycles", Kind: "ring", Value: 100, Keys: results.UnboundedKeys, Writers: 2, Window: 100 * time.Millisecond,
		MinRun: 500 * time.Millisecond, Duration: time.Minute, MinCycles: 2, Thresholds: results.Thresholds{Warmup: 200 * time.Millisecond}}
	end := runEnd(t, spec, &ringStore{ring: make([][]byte, 1000)})
	if end.Reason != results.StopDuration || end.T >= 30 || end.Cycles < 2 {
		t.Fatalf("end: reason %q at %.1f s with %d cycles; want duration, well before the 60 s cap", end.Reason, end.T, end.Cycles)
	}
}
