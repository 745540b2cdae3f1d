package view

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"math"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/memtable"
)

// The colours a kind is drawn in, on every chart and page (the PNG and SVG
// charts, report.html and the live page): writegc's own kinds have fixed
// ones; any other kind takes one of userPalette, picked by a hash of its
// name, so it keeps its colour from run to run and from chart to chart.
// Two user kinds may share a colour; the charts then tell their lines
// apart by glyph (see the report package).
var (
	builtinColours = map[string]color.RGBA{
		memtable.KindHeap:    {0xd6, 0x27, 0x28, 0xff}, // red: the kind the failure scenario kills
		memtable.KindArena:   {0x1f, 0x77, 0xb4, 0xff}, // blue
		memtable.KindOffHeap: {0x2c, 0xa0, 0x2c, 0xff}, // green
		memtable.KindBTree:   {0x94, 0x67, 0xbd, 0xff}, // purple
	}
	userPalette = []color.RGBA{
		{0xff, 0x7f, 0x0e, 0xff}, // orange
		{0x17, 0xbe, 0xcf, 0xff}, // cyan
		{0xe3, 0x77, 0xc2, 0xff}, // pink
		{0x8c, 0x56, 0x4b, 0xff}, // brown
		{0xbc, 0xbd, 0x22, 0xff}, // olive
		{0x39, 0x3b, 0x79, 0xff}, // indigo
		{0x63, 0x79, 0x39, 0xff}, // moss
	}
)

// KindColour is the colour of kind's lines everywhere. It is a pure
// function of the name: writegc's kinds (heap, arena, offheap, btree) have
// fixed colours, others a stable pick from a palette that none of those
// use.
func KindColour(kind string) color.RGBA {
	if c, ok := builtinColours[kind]; ok {
		return c
	}
	h := fnv.New32a()
	h.Write([]byte(kind)) // a hash.Hash's Write never fails
	return userPalette[h.Sum32()%uint32(len(userPalette))]
}

// KindColourHex is KindColour as a CSS colour ("#rrggbb"), for the pages.
func KindColourHex(kind string) string {
	c := KindColour(kind)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// EnvColour is the colour of kind's lines in the build environment at
// position i of a run's -build-envs (EnvIndex): KindColour for the first
// (and for a run without environments), then alternately darker and
// lighter shades of it, each further from it than the last, so that two
// environments of one kind are told apart and still read as that kind.
// A pure function.
func EnvColour(kind string, i int) color.RGBA {
	c := KindColour(kind)
	if i <= 0 {
		return c
	}
	t := 1 - math.Pow(0.6, float64((i+1)/2)) // 0.4, 0.64, 0.78, ...
	to := 0.0                                // odd positions: towards black
	if i%2 == 0 {
		to = 255 // even ones: towards white
	}
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*(1-t) + to*t)) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

// EnvColourHex is EnvColour as a CSS colour ("#rrggbb"), for the pages.
func EnvColourHex(kind string, i int) string {
	c := EnvColour(kind, i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// EnvIndex is the position of build environment name among a run's
// environments (results.Summary.BuildEnvs); 0 for "" or a name not there.
func EnvIndex(envs []results.BuildEnv, name string) int {
	for i, e := range envs {
		if e.Name == name {
			return i
		}
	}
	return 0
}
