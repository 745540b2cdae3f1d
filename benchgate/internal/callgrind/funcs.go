package callgrind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Limits on what ParseProfile reads besides MaxOutBytes and MaxLineBytes.
const (
	// MaxFuncs bounds the distinct function names of one output file (a Go
	// test binary's run names a few thousand).
	MaxFuncs = 1 << 17
	// MaxNames bounds the entries of the name-compression tables (objects,
	// files and functions together).
	MaxNames = 1 << 19
	// maxPositions bounds the position columns a "positions:" line may name
	// (callgrind writes "line" or "instr line").
	maxPositions = 4
)

// ErrBadFormat: an output line that callgrind's format does not allow where
// it stands (a cost line before any fn=, a compressed name reference that
// was never defined, a cost that is not a number).
var ErrBadFormat = errors.New("callgrind: malformed output")

// FuncCost is one function's instruction count (the Ir event) in one
// output: Self counts the instructions of the function's own code, Incl adds
// the costs callgrind attributed to its calls. Incl follows callgrind's call
// tracking, which goroutine switches can confuse; Self does not depend on it.
type FuncCost struct{ Self, Incl uint64 }

// Profile is one output file: the process's totals and its instruction
// counts per function (by name, summed over the objects and files that
// define it).
type Profile struct {
	Counts Counts
	Funcs  map[string]FuncCost
	// Trigger is the function whose entry or return made callgrind write
	// this file, from its "desc: Trigger: --dump-before=NAME" line (the same
	// for --dump-after); "" for the dump at program termination.
	Trigger string
}

// nameTable resolves callgrind's name compression: "(12) name" defines id
// 12, a later "(12)" refers to it. Ids live in a map, so a huge id costs
// nothing; the number of entries is bounded by MaxNames (shared by the
// tables of one file through *total).
type nameTable struct {
	byID  map[int]string
	total *int
}

// resolve reads the value of an fn=, cfn=, fl= ... line.
func (t *nameTable) resolve(v string) (string, error) {
	if !strings.HasPrefix(v, "(") {
		return v, nil
	}
	end := strings.IndexByte(v, ')')
	if end < 0 {
		return "", fmt.Errorf("%w: name %q: no closing parenthesis", ErrBadFormat, v)
	}
	id, err := strconv.Atoi(v[1:end])
	if err != nil || id < 0 {
		return "", fmt.Errorf("%w: name id %q", ErrBadFormat, v[1:end])
	}
	name := strings.TrimSpace(v[end+1:])
	if name == "" {
		known, ok := t.byID[id]
		if !ok {
			return "", fmt.Errorf("%w: name id %d used before it was defined", ErrBadFormat, id)
		}
		return known, nil
	}
	if _, ok := t.byID[id]; !ok {
		if *t.total >= MaxNames {
			return "", fmt.Errorf("%w: over %d compressed names", ErrTooLarge, MaxNames)
		}
		*t.total++
	}
	t.byID[id] = name
	return name, nil
}

// profileParser is ParseProfile's state.
type profileParser struct {
	events, totals, summary []string
	npos                    int // position columns of a cost line
	irIdx                   int // column of Ir among the events; -1 until known
	fns                     nameTable
	fn                      string // the current function; "" before the first fn=
	afterCalls              bool   // the next cost line is a call's cost
	funcs                   map[string]FuncCost
	trigger                 string // the desc: Trigger: line's function
	// inl attributes costs to inlined functions by instruction address
	// (nil: none); instrCol is the instr position's column (-1: none),
	// last the positions of the latest cost line, for relative ones.
	inl      *Inlines
	instrCol int
	last     [maxPositions]uint64
	chain    []string
}

// ParseProfile reads a callgrind output file (the format callgrind writes,
// name compression included): the totals ParseOut reads, and each
// function's self and inclusive instruction counts. Lines it does not know
// (ob=, fl=, fi=, fe=, jump=, desc: and the like) are skipped; a cost line
// before any fn= line, or one that is not numbers, is ErrBadFormat. Limits
// are checked before anything is kept: MaxOutBytes, MaxLineBytes, MaxFuncs,
// MaxNames.
func ParseProfile(r io.Reader) (*Profile, error) { return ParseProfileInlined(r, nil) }

// ParseProfileInlined is ParseProfile attributing each instruction to the
// function inlined at its address (inl; nil for none), as pprof names
// inlined frames: a cost line at an address inside an inlined call counts
// as the innermost inlined function's own (Self) and in the inclusive
// counts (Incl) of every function of its inline chain and of the function
// it was inlined into, whose Self no longer holds it. It needs the
// instruction positions of callgrind's --dump-instr=yes; an output without
// them is read as ParseProfile reads it.
func ParseProfileInlined(r io.Reader, inl *Inlines) (*Profile, error) {
	sc := bufio.NewScanner(io.LimitReader(r, MaxOutBytes+1))
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes)
	total := 0
	p := &profileParser{npos: 1, irIdx: -1, fns: nameTable{byID: map[int]string{}, total: &total},
		funcs: map[string]FuncCost{}, inl: inl, instrCol: -1}
	read := 0
	for sc.Scan() {
		line := sc.Text()
		read += len(line) + 1
		if read > MaxOutBytes {
			return nil, ErrTooLarge
		}
		if err := p.line(line); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: a line over %d bytes", ErrTooLarge, MaxLineBytes)
		}
		return nil, err
	}
	totals := p.totals
	if totals == nil {
		totals = p.summary
	}
	if len(p.events) == 0 || len(totals) == 0 {
		return nil, ErrNoTotals
	}
	c, err := zipCounts(p.events, totals)
	if err != nil {
		return nil, err
	}
	return &Profile{Counts: c, Funcs: p.funcs, Trigger: p.trigger}, nil
}

// line handles one line of the file.
func (p *profileParser) line(line string) error {
	if line == "" || line[0] == '#' {
		return nil
	}
	if c := line[0]; c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
		return p.cost(line)
	}
	key, val, ok := strings.Cut(line, "=")
	if !ok || strings.ContainsAny(key, ": ") {
		return p.header(line)
	}
	switch key {
	case "fn":
		name, err := p.fns.resolve(val)
		if err != nil {
			return err
		}
		if _, seen := p.funcs[name]; !seen {
			if len(p.funcs) >= MaxFuncs {
				return fmt.Errorf("%w: over %d functions", ErrTooLarge, MaxFuncs)
			}
			p.funcs[name] = FuncCost{}
		}
		p.fn, p.afterCalls = name, false
	case "cfn":
		// The callee shares fn='s table: a name may be defined on a cfn= line
		// and referred to by a later fn=.
		if _, err := p.fns.resolve(val); err != nil {
			return err
		}
	case "calls":
		p.afterCalls = true
	}
	return nil
}

// header handles a "key: value" line; only events, positions, totals,
// summary and a dump's trigger (desc: Trigger:) matter.
func (p *profileParser) header(line string) error {
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return nil // not a line this parser knows: skipped
	}
	switch strings.TrimSpace(key) {
	case "events":
		p.events = strings.Fields(val)
		p.irIdx = -1
		for i, ev := range p.events {
			if ev == evIr {
				p.irIdx = i
			}
		}
	case "positions":
		cols := strings.Fields(val)
		n := len(cols)
		if n < 1 || n > maxPositions {
			return fmt.Errorf("%w: positions line %q", ErrBadFormat, line)
		}
		p.npos = n
		p.instrCol = slices.Index(cols, "instr")
	case "totals":
		p.totals = strings.Fields(val)
	case "summary":
		p.summary = strings.Fields(val)
	case "desc":
		// "desc: Trigger: --dump-before=testing.(*B).ResetTimer"
		if t, ok := strings.CutPrefix(strings.TrimSpace(val), "Trigger: --dump-"); ok {
			if _, fn, ok := strings.Cut(t, "="); ok {
				p.trigger = fn
			}
		}
	}
	return nil
}

// cost handles a cost line: positions, then the event counts (trailing
// zeros left out). After a calls= line it is the call's inclusive cost,
// added to the caller's Incl; otherwise the current function's own cost.
// With inline attribution it goes to the inline chain at its address.
func (p *profileParser) cost(line string) error {
	afterCalls := p.afterCalls
	p.afterCalls = false
	if p.fn == "" {
		return fmt.Errorf("%w: a cost line before any fn= line", ErrBadFormat)
	}
	f := strings.Fields(line)
	chain := p.chain[:0]
	if p.inl != nil && p.instrCol >= 0 {
		addr, err := p.positions(f, !afterCalls)
		if err != nil {
			return err
		}
		chain = p.inl.Chain(addr, p.chain)
		p.chain = chain
	}
	if p.irIdx < 0 {
		return nil // no Ir event (yet): nothing to count
	}
	i := p.npos + p.irIdx
	if i >= len(f) {
		return nil // Ir left out: zero
	}
	v, err := strconv.ParseUint(f[i], 10, 64)
	if err != nil {
		return fmt.Errorf("%w: cost %q: %v", ErrBadFormat, f[i], err)
	}
	c := p.funcs[p.fn]
	if !afterCalls && len(chain) == 0 {
		c.Self += v
	}
	c.Incl += v
	p.funcs[p.fn] = c
	for k, name := range chain {
		if name == p.fn || slices.Contains(chain[:k], name) {
			continue // counted once per function
		}
		ic, seen := p.funcs[name]
		if !seen && len(p.funcs) >= MaxFuncs {
			return fmt.Errorf("%w: over %d functions", ErrTooLarge, MaxFuncs)
		}
		if k == 0 && !afterCalls {
			ic.Self += v
		}
		ic.Incl += v
		p.funcs[name] = ic
	}
	return nil
}

// positions reads the position columns of a cost line (absolute, "+N" or
// "-N" from the previous cost line's, or "*" for the same) and returns the
// instruction address; keep says to keep them for the next line. A call's
// cost line is relative to the cost line before it and is not kept
// (callgrind's dump.c writes it so).
func (p *profileParser) positions(f []string, keep bool) (uint64, error) {
	if len(f) < p.npos {
		return 0, fmt.Errorf("%w: a cost line with %d of %d positions", ErrBadFormat, len(f), p.npos)
	}
	var pos [maxPositions]uint64
	for k := range p.npos {
		v, err := subPosition(f[k], p.last[k])
		if err != nil {
			return 0, err
		}
		pos[k] = v
	}
	if keep {
		p.last = pos
	}
	return pos[p.instrCol], nil
}

// subPosition reads one position column against the previous value.
func subPosition(s string, prev uint64) (uint64, error) {
	if s == "*" {
		return prev, nil
	}
	sign := s[0]
	if sign == '+' || sign == '-' {
		s = s[1:]
	}
	var v uint64
	var err error
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		v, err = strconv.ParseUint(h, 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: position %q", ErrBadFormat, s)
	}
	switch sign {
	case '+':
		return prev + v, nil
	case '-':
		return prev - v, nil
	}
	return v, nil
}

// FuncPerOp is one function's instructions per op over a difference of
// runs: its own (Self) and with its calls (Incl; see FuncCost).
type FuncPerOp struct{ Self, Incl float64 }

// FuncDiff is, per function name, its instruction counts per op between
// profile lo (nLo ops) and hi (nHi ops): (hi - lo) / (nHi - nLo), the same
// difference as Diff's, so start-up and other fixed costs cancel. Functions
// whose counts did not change are left out; a fall is negative.
func FuncDiff(lo, hi *Profile, nLo, nHi int) (map[string]FuncPerOp, error) {
	if nHi <= nLo || nLo < 0 {
		return nil, fmt.Errorf("callgrind: op counts %d and %d: the second must be larger", nLo, nHi)
	}
	n := float64(nHi - nLo)
	d := func(a, b uint64) float64 { return (float64(b) - float64(a)) / n }
	out := map[string]FuncPerOp{}
	add := func(name string, l, h FuncCost) {
		if l != h {
			out[name] = FuncPerOp{Self: d(l.Self, h.Self), Incl: d(l.Incl, h.Incl)}
		}
	}
	for name, h := range hi.Funcs {
		add(name, lo.Funcs[name], h)
	}
	for name, l := range lo.Funcs {
		if _, ok := hi.Funcs[name]; !ok {
			add(name, l, FuncCost{})
		}
	}
	return out, nil
}
