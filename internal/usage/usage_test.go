package usage

import (
	"errors"
	"testing"
)

func TestErrorf(t *testing.T) {
	err := Errorf("duration", "want a duration such as %s", "30s")
	if !errors.Is(err, ErrUsage) || err.Error() != "usage: -duration: want a duration such as 30s" {
		t.Errorf("Errorf = %v", err)
	}
}
