package view

import (
	"fmt"
	"hash/fnv"
	"image/color"

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
