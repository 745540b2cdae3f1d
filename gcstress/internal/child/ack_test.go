package child

import (
	"sync"
	"testing"
)

// Out-of-order acks advance the prefix only over indexes that all
// returned; concurrent acks of every index end at the total.
func TestAckCounter(t *testing.T) {
	var a ackCounter
	a.start(10)
	a.ack(11)
	a.ack(12)
	if n := a.load(); n != 10 {
		t.Fatalf("prefix %d after acks of 11 and 12, want 10 (10 is in flight)", n)
	}
	a.ack(10)
	if n := a.load(); n != 13 {
		t.Fatalf("prefix %d, want 13", n)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := int64(13 + w); i < 13+80_000; i += 8 {
				a.ack(i)
			}
		})
	}
	wg.Wait()
	if n := a.load(); n != 13+80_000 {
		t.Fatalf("prefix %d, want %d", n, 13+80_000)
	}
}
