package compare

import (
	"errors"
	"testing"
)

// A build environment is part of a row's key: a scenario under Green Tea
// is never compared with the same scenario under the classic collector.
func TestCompareKeysOnEnv(t *testing.T) {
	green, classic := heap100, heap100
	green.Env, classic.Env = "greentea", "classic"
	objs := map[Unit][]float64{ObjectsPerEntry: around(5, 5)}
	if _, err := Compare(file("old", green, objs), file("new", classic, objs), Options{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("greentea against classic: %v, want no scenario in common", err)
	}
	both := func(path string) *File {
		f := file(path, green, objs)
		f.Series = append(f.Series, file(path, classic, map[Unit][]float64{ObjectsPerEntry: around(10, 5)}).Series...)
		return f
	}
	rep, err := Compare(both("old"), both("new"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Key.Env != "greentea" || rep.Rows[1].Key.Env != "classic" {
		t.Fatalf("rows %+v, want one per environment", rep.Rows)
	}
	for _, r := range rep.Rows {
		if r.Verdict != same {
			t.Errorf("%v: %s, want same", r.Key, Word(r.Verdict))
		}
	}
}
