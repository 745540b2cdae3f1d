package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/internal/view"
)

// TestNumsNaNIsNull: a missing figure (GOMEMLIMIT off) is JSON null.
func TestNumsNaNIsNull(t *testing.T) {
	var ww webWindows
	ww.add(view.Point{T: 1, Limit: nil, P99: 2.5})
	b, err := json.Marshal(ww)
	if err != nil || !strings.Contains(string(b), `"limit":[null]`) || !strings.Contains(string(b), `"p99":[2.5]`) {
		t.Fatalf("%s %v", b, err)
	}
}
