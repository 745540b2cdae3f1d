package callgrind

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// MaxInlineRanges bounds the address ranges of inlined calls ReadInlines
// keeps (a Go test binary holds tens of thousands).
const MaxInlineRanges = 1 << 21

// ErrNoInlines: a binary whose inlined calls cannot be read: no DWARF
// (built with -ldflags=-w or stripped), not ELF, or a position-independent
// executable, whose addresses under valgrind are not those of its DWARF.
var ErrNoInlines = errors.New("callgrind: no inline information")

// Inlines maps the instruction addresses of one binary to the functions
// the compiler inlined there, from the binary's DWARF
// (DW_TAG_inlined_subroutine: the callee's name through its abstract
// origin, its address ranges), so that a profile can name the function a
// developer wrote rather than the one it was inlined into, as pprof does.
// It is read-only once built: safe for use by several goroutines.
type Inlines struct {
	roots []inlNode // sorted by lo, disjoint
}

// inlNode is one address range of an inlined call and the inlined calls
// within it (sorted by lo, disjoint).
type inlNode struct {
	lo, hi uint64 // [lo, hi)
	name   string
	kids   []inlNode
}

// inlRange is one range as read, before the tree is built.
type inlRange struct {
	lo, hi uint64
	depth  int
	name   string
}

// ReadInlines reads the inlined calls of the ELF executable bin. A binary
// without DWARF, or one that is position-independent, is ErrNoInlines.
func ReadInlines(bin string) (*Inlines, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoInlines, err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return nil, fmt.Errorf("%w: %s is not a fixed-address executable (%v)", ErrNoInlines, bin, f.Type)
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoInlines, err)
	}
	ranges, err := inlineRanges(d)
	if err != nil {
		return nil, err
	}
	return buildInlines(ranges), nil
}

// inlineRanges lists every range of every inlined call in d with its
// nesting depth below the concrete function.
func inlineRanges(d *dwarf.Data) ([]inlRange, error) {
	names := map[dwarf.Offset]string{} // abstract origins' names
	var out []inlRange
	r := d.Reader()
	depth := 0 // of the entries read next, counted in inlined calls
	var stack []bool
	for {
		e, err := r.Next()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoInlines, err)
		}
		if e == nil {
			return out, nil
		}
		if e.Tag == 0 { // the end of a list of children
			if n := len(stack); n > 0 {
				if stack[n-1] {
					depth--
				}
				stack = stack[:n-1]
			}
			continue
		}
		inl := e.Tag == dwarf.TagInlinedSubroutine
		if inl {
			name, err := originName(d, e, names)
			if err != nil {
				return nil, err
			}
			rs, err := d.Ranges(e)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrNoInlines, err)
			}
			if len(out)+len(rs) > MaxInlineRanges {
				return nil, fmt.Errorf("%w: over %d inlined ranges", ErrTooLarge, MaxInlineRanges)
			}
			for _, rg := range rs {
				if rg[1] > rg[0] {
					out = append(out, inlRange{lo: rg[0], hi: rg[1], depth: depth + 1, name: name})
				}
			}
		}
		if e.Children {
			stack = append(stack, inl)
			if inl {
				depth++
			}
		}
	}
}

// originName is the name of an inlined call's function: its abstract
// origin's DW_AT_name (cached by offset).
func originName(d *dwarf.Data, e *dwarf.Entry, cache map[dwarf.Offset]string) (string, error) {
	off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
	if !ok {
		name, _ := e.Val(dwarf.AttrName).(string)
		return name, nil
	}
	if name, ok := cache[off]; ok {
		return name, nil
	}
	r := d.Reader()
	r.Seek(off)
	o, err := r.Next()
	if err != nil || o == nil {
		return "", fmt.Errorf("%w: abstract origin %#x: %v", ErrNoInlines, off, err)
	}
	name, _ := o.Val(dwarf.AttrName).(string)
	cache[off] = name
	return name, nil
}

// buildInlines nests the ranges: sorted by start, longest and shallowest
// first, each range goes under the latest one that holds it.
func buildInlines(rs []inlRange) *Inlines {
	slices.SortFunc(rs, func(a, b inlRange) int {
		return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(b.hi, a.hi), cmp.Compare(a.depth, b.depth))
	})
	root := &inlNode{hi: ^uint64(0)}
	path := []*inlNode{root}
	for _, r := range rs {
		for len(path) > 1 && !(r.lo >= path[len(path)-1].lo && r.hi <= path[len(path)-1].hi) {
			path = path[:len(path)-1]
		}
		parent := path[len(path)-1]
		if k := len(parent.kids); k > 0 && parent.kids[k-1].hi > r.lo {
			continue // overlaps a sibling without nesting: not a tree DWARF makes
		}
		parent.kids = append(parent.kids, inlNode{lo: r.lo, hi: r.hi, name: r.name})
		path = append(path, &parent.kids[len(parent.kids)-1])
	}
	return &Inlines{roots: root.kids}
}

// Chain returns the functions inlined at addr, innermost first, appended
// to buf[:0]; none when addr is in no inlined call.
func (in *Inlines) Chain(addr uint64, buf []string) []string {
	buf = buf[:0]
	if in == nil {
		return buf
	}
	nodes := in.roots
	for {
		i := sort.Search(len(nodes), func(i int) bool { return nodes[i].hi > addr })
		if i == len(nodes) || nodes[i].lo > addr {
			break
		}
		buf = append(buf, nodes[i].name)
		nodes = nodes[i].kids
	}
	slices.Reverse(buf)
	return buf
}
