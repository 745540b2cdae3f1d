package proto

import (
	"errors"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestStopCauseFirstWins: the first reason is kept; a Put error is kept
// even when another reason came first.
func TestStopCauseFirstWins(t *testing.T) {
	var c StopCause
	c.Set(results.StopDuration)
	c.Fail(errors.New("boom"))
	c.Set(results.StopKeys)
	if r, err := c.Get(); r != results.StopDuration || err == nil || err.Error() != "boom" {
		t.Fatalf("got %q %v", r, err)
	}
	var d StopCause
	d.Fail(errors.New("x"))
	d.Fail(errors.New("y"))
	if r, err := d.Get(); r != results.StopError || err.Error() != "x" {
		t.Fatalf("got %q %v", r, err)
	}
}
