package slowdown

import "testing"

func TestParse(t *testing.T) {
	got, err := Parse(" arena=6, memtable=400,synth=0,arena=7")
	if err != nil {
		t.Fatal(err)
	}
	want := [NumSites]uint64{ArenaAlloc: 7, MemtablePut: 400}
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := Parse(""); err != nil || got != ([NumSites]uint64{}) {
		t.Errorf("empty: got %v, %v", got, err)
	}
	for _, bad := range []string{"arena", "arena=1.5", "arena=-1", "nosuch=3", "arena=3,"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestInjectAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Inject(ArenaAlloc) }); n != 0 {
		t.Errorf("Inject allocates %v times per call", n)
	}
}
