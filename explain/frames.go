package explain

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// frames returns the function names of a sample's stack, leaf first,
// expanding inlined frames. A location without symbols is named by address.
func frames(s *profile.Sample) []string {
	out := make([]string, 0, len(s.Location)*2)
	for _, loc := range s.Location {
		if len(loc.Line) == 0 {
			out = append(out, fmt.Sprintf("0x%x", loc.Address))
			continue
		}
		for _, ln := range loc.Line {
			if ln.Function == nil || ln.Function.Name == "" {
				out = append(out, fmt.Sprintf("0x%x", loc.Address))
				continue
			}
			out = append(out, ln.Function.Name)
		}
	}
	return out
}

// pkgPath returns the import path of a Go function name such as
// "github.com/a/b.(*T).M" (-> "github.com/a/b") or "bytes.Index" (-> "bytes").
func pkgPath(fn string) string {
	end := len(fn)
	if i := strings.IndexAny(fn, "[("); i >= 0 {
		end = i
	}
	head := fn[:end]
	slash := strings.LastIndex(head, "/")
	dot := strings.Index(head[slash+1:], ".")
	if dot < 0 {
		return head
	}
	return head[:slash+1+dot]
}

// shortName drops the directories of a function's import path and the
// type arguments of generic instantiations:
// "github.com/writegc/writegc/memtable.(*heapList).Put" -> "memtable.(*heapList).Put",
// "github.com/google/btree.(*node[go.shape.struct {...}]).split" -> "btree.(*node[...]).split".
func shortName(fn string) string {
	end := len(fn)
	if i := strings.IndexAny(fn, "[("); i >= 0 {
		end = i
	}
	if i := strings.LastIndex(fn[:end], "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if !strings.Contains(fn, "[") {
		return fn
	}
	var b strings.Builder
	depth := 0
	for _, r := range fn {
		switch {
		case r == '[':
			if depth == 0 {
				b.WriteString("[...]")
			}
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isRuntime reports whether fn belongs to the Go runtime or the assembly
// and internal packages it is built from.
func isRuntime(fn string) bool {
	for _, p := range []string{
		"runtime.", "runtime/internal/", "internal/runtime/", "internal/abi.",
		"internal/bytealg.", "internal/cpu.", "internal/race.", "gcWriteBarrier",
	} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// isStdlib reports whether fn's package is in the standard library: its
// import path's first element has no dot (and it is not package main or a
// test main).
func isStdlib(fn string) bool {
	p := pkgPath(fn)
	if p == "main" || p == "command-line-arguments" || strings.HasPrefix(fn, "0x") {
		return false
	}
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// attributor picks the frame that pays for a cost.
type attributor struct {
	library    []string
	keepStdlib bool
}

func (a attributor) isLibrary(fn string) bool {
	if !a.keepStdlib && isStdlib(fn) {
		return true
	}
	p := pkgPath(fn)
	for _, l := range a.library {
		l = strings.TrimSuffix(l, "/")
		if l != "" && (p == l || strings.HasPrefix(p, l+"/")) {
			return true
		}
	}
	return false
}

// pick returns the first frame of fs (leaf first) that is neither runtime
// nor library code; failing that the first non-runtime frame; failing that
// the leaf. It returns "(unknown)" for an empty stack.
func (a attributor) pick(fs []string) string {
	firstNonRuntime := ""
	for _, f := range fs {
		if isRuntime(f) {
			continue
		}
		if firstNonRuntime == "" {
			firstNonRuntime = f
		}
		if !a.isLibrary(f) {
			return f
		}
	}
	if firstNonRuntime != "" {
		return firstNonRuntime
	}
	if len(fs) > 0 {
		return fs[0]
	}
	return "(unknown)"
}

// Site is one function and the part of a cost it accounts for.
type Site struct {
	// Func is the function's short name (import path directories dropped).
	Func string
	// Value is in the unit of the table the site belongs to (nanoseconds,
	// objects or bytes).
	Value int64
	// Share is Value over the table's total, from 0 to 1.
	Share float64
}

// topSites sorts a tally by value (then name) and keeps the first n.
func topSites(tally map[string]int64, total int64, n int) []Site {
	out := make([]Site, 0, len(tally))
	for f, v := range tally {
		if v <= 0 {
			continue
		}
		s := Site{Func: shortName(f), Value: v}
		if total > 0 {
			s.Share = float64(v) / float64(total)
		}
		out = append(out, s)
	}
	sortSites(out)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
