package view

import (
	"fmt"
	"image/color"
	"regexp"
	"slices"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// TestKindColour: writegc's kinds have fixed, distinct colours; a user
// kind's colour is a stable pick from the user palette, never one of
// theirs; the hex form is the same colour.
func TestKindColour(t *testing.T) {
	builtins := []string{memtable.KindHeap, memtable.KindArena, memtable.KindOffHeap, memtable.KindBTree}
	seen := map[string]string{}
	for _, k := range builtins {
		h := KindColourHex(k)
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s share %s", k, other, h)
		}
		seen[h] = k
	}
	if KindColourHex(memtable.KindHeap) != "#d62728" || KindColourHex(memtable.KindArena) != "#1f77b4" || KindColourHex(memtable.KindOffHeap) != "#2ca02c" {
		t.Errorf("built-in colours changed: heap %s arena %s offheap %s",
			KindColourHex(memtable.KindHeap), KindColourHex(memtable.KindArena), KindColourHex(memtable.KindOffHeap))
	}
	hex := regexp.MustCompile(`^#[0-9a-f]{6}$`)
	for _, k := range []string{"shardmap", "segstore", "pebble", "badger", "", "x"} {
		c := KindColour(k)
		if !slices.Contains(userPalette, c) {
			t.Errorf("%q: %v is not in the user palette", k, c)
		}
		if c != KindColour(k) {
			t.Errorf("%q: colour not stable", k)
		}
		h := KindColourHex(k)
		if _, builtin := seen[h]; builtin || !hex.MatchString(h) || h != fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) {
			t.Errorf("%q: hex %s (built-in %v)", k, h, builtin)
		}
	}
}

// TestPointColour: a window point carries its kind's colour and the heap
// object bytes the "heap above goal" rule compares, apart from heap live.
func TestPointColour(t *testing.T) {
	p := PointOf(results.Scenario{Name: "failure/heap", Kind: "heap"}, results.Sample{HeapLive: 10 << 20, HeapObjects: 30 << 20}, nil)
	if p.Colour != KindColourHex("heap") || p.Objects != 30 || p.Live != 10 {
		t.Fatalf("point %+v", p)
	}
}

// TestEnvColour: a kind's build environments (as many as -build-envs
// allows) have distinct colours, the first the kind's own, from run to run.
func TestEnvColour(t *testing.T) {
	for _, k := range []string{memtable.KindHeap, memtable.KindArena, memtable.KindOffHeap, memtable.KindBTree, "mystore"} {
		seen := map[color.RGBA]int{}
		for i := range 8 {
			c := EnvColour(k, i)
			if j, ok := seen[c]; ok {
				t.Errorf("%s: environments %d and %d share %v", k, j, i, c)
			}
			seen[c] = i
			if c != EnvColour(k, i) {
				t.Errorf("%s %d: not stable", k, i)
			}
		}
		if EnvColour(k, 0) != KindColour(k) || EnvColourHex(k, 0) != KindColourHex(k) {
			t.Errorf("%s: the first environment is not in the kind's colour", k)
		}
	}
	envs := []results.BuildEnv{{Name: "a"}, {Name: "b"}}
	if EnvIndex(envs, "b") != 1 || EnvIndex(envs, "x") != 0 || EnvIndex(nil, "a") != 0 {
		t.Error("EnvIndex")
	}
}
