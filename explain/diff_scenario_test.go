package explain

import (
	"strings"
	"testing"
)

// TestDiffScenarioRows: the end record's figures come first, side by side,
// when either account has them, and not at all when neither has.
func TestDiffScenarioRows(t *testing.T) {
	a := &Account{Label: "shardmap", Scenario: &ScenarioCost{ObjectsPerEntry: 2.01, BytesPerEntry: 226, GCCPUNsPerPut: 109, AssistNsPerPut: 30, GCShare: 0.052}}
	b := &Account{Label: "segstore", Scenario: &ScenarioCost{ObjectsPerEntry: 0.004, BytesPerEntry: 185, GCCPUNsPerPut: 21, AssistNsPerPut: 1}}
	var sb strings.Builder
	if err := WriteDiff(&sb, a, b, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"objects per entry (end record)  2.01", "0.004", "GC CPU-ns per Put (end record)  109 (assist 30)", "21 (assist 1)", "GC share, scenario table        5.2%"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("diff lacks %q:\n%s", want, sb.String())
		}
	}
	sb.Reset()
	if err := WriteDiff(&sb, &Account{Label: "a"}, &Account{Label: "b"}, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sb.String(), "end record") {
		t.Errorf("scenario rows without figures:\n%s", sb.String())
	}
}
