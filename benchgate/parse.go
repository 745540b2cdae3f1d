package benchgate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Key identifies one compared quantity: a benchmark's full name as written
// (with its -GOMAXPROCS suffix) and one of its units as written.
type Key struct {
	Name string
	Unit string
}

// Set holds the parsed samples of one side (base or head) of a comparison.
//
// A Set is built by Parse or ParseFiles and is read-only afterwards: it may
// then be shared between goroutines. Its size is proportional to the bytes
// read, which a Parser bounds (DefaultMaxBytes per input). Every value in
// Samples is finite and non-negative.
type Set struct {
	// Files are the inputs, in the order read.
	Files []string
	// Samples holds every measurement of every Key, in input order.
	Samples map[Key][]float64
	// Keys lists the Keys in first-seen order.
	Keys []Key
	// Units is the unit metadata (`Unit NAME key=value` lines) of all inputs.
	Units benchfmt.UnitMetadataMap
	// Config holds the first value seen of each configuration key
	// (`commit: ...`, `goversion: ...`, `cpu: ...`).
	Config map[string]string
	// Configs holds every distinct value of each configuration key, in
	// first-seen order (a file concatenated from two machines shows both
	// cpus here). Only configuration that applies to a result counts.
	Configs map[string][]string
	// Malformed lists the lines that could not be parsed, with file and line.
	Malformed []*benchfmt.SyntaxError
}

// MalformedError reports every malformed line of a Set. It wraps ErrMalformed.
type MalformedError struct {
	Lines []*benchfmt.SyntaxError
}

func (e *MalformedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d malformed line(s):", len(e.Lines))
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\n\t%s:%d: %s", l.FileName, l.Line, l.Msg)
	}
	return b.String()
}

func (e *MalformedError) Unwrap() error { return ErrMalformed }

// ParseFiles reads and merges the named files into one Set (unit metadata
// carries across files) within the default limits: Parser{}.ParseFiles.
func ParseFiles(paths ...string) (*Set, error) { return Parser{}.ParseFiles(paths...) }

// Parse reads one benchmark file within the default limits: Parser{}.Parse.
func Parse(in io.Reader, fileName string) (*Set, error) { return Parser{}.Parse(in, fileName) }

// ParseFiles reads and merges the named files into one Set (unit metadata
// carries across files). See Parse for the errors; an unreadable file is
// returned as the os error. Each file is read as a stream: memory grows with
// its result lines, not its size.
func (p Parser) ParseFiles(paths ...string) (*Set, error) {
	p, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	s := newSet()
	r := benchfmt.NewReader(bytes.NewReader(nil), "")
	var json []string
	for _, path := range paths {
		f, err := p.openFile(path)
		if err != nil {
			return nil, err
		}
		lr := p.limit(f, path)
		src, tj := p.sniff(lr, path)
		r.Reset(src, path)
		err = s.read(r, lr, tj, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		if tj != nil && tj.events > 0 {
			json = append(json, path)
		}
	}
	return s.finish(strings.Join(paths, ", "), json)
}

// Parse reads one benchmark file, as a stream. fileName is used in messages
// only.
//
// An input whose first non-blank byte is '{' is `go test -json` output:
// the text of its output events is parsed (see testjson.go), with the same
// limits, and malformed lines are named by their line in the input.
//
// It returns ErrTooLarge (and no Set) for an input over p's limits,
// errEmptyInput (and no Set) for an input with no non-blank bytes and
// ErrNoBenchmarks for one without result lines (also wrapping ErrTestJSON,
// with a hint to run with -bench, when the input is `go test -json`
// output). Malformed lines, including
// result lines with a NaN, infinite or negative value, do not stop parsing:
// they are left out of the Set, and Parse returns the Set together with a
// *MalformedError that lists them; the caller decides whether that is fatal.
func (p Parser) Parse(in io.Reader, fileName string) (*Set, error) {
	p, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	s := newSet()
	lr := p.limit(in, fileName)
	src, tj := p.sniff(lr, fileName)
	if err := s.read(benchfmt.NewReader(src, fileName), lr, tj, fileName); err != nil {
		return nil, err
	}
	var json []string
	if tj != nil && tj.events > 0 {
		json = []string{fileName}
	}
	return s.finish(fileName, json)
}

func newSet() *Set {
	return &Set{Samples: map[Key][]float64{}, Config: map[string]string{}, Configs: map[string][]string{}}
}

// read parses r, which reads through lr (and tj, for `go test -json`
// input), into s. A limit exceeded or an input of blank lines only is an
// error, without the Set.
func (s *Set) read(r *benchfmt.Reader, lr *limitReader, tj *testJSON, fileName string) error {
	s.Files = append(s.Files, fileName)
	first := len(s.Malformed)
	defer func() {
		if tj == nil {
			return
		}
		for _, m := range s.Malformed[first:] {
			m.Line = tj.inputLine(m.Line)
		}
		s.Malformed = append(s.Malformed, tj.malformed...)
	}()
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			s.Malformed = append(s.Malformed, rec)
		case *benchfmt.UnitMetadata:
			if msg := checkMetadata(rec); msg != "" {
				file, line := rec.Pos()
				s.Malformed = append(s.Malformed, &benchfmt.SyntaxError{FileName: file, Line: line, Msg: msg})
			}
		case *benchfmt.Result:
			if msg := checkValues(rec); msg != "" {
				file, line := rec.Pos()
				s.Malformed = append(s.Malformed, &benchfmt.SyntaxError{FileName: file, Line: line, Msg: msg})
				continue
			}
			for _, c := range rec.Config {
				if _, ok := s.Config[c.Key]; !ok {
					s.Config[c.Key] = string(c.Value)
				}
				if v := string(c.Value); !slices.Contains(s.Configs[c.Key], v) {
					s.Configs[c.Key] = append(s.Configs[c.Key], v)
				}
			}
			name := "Benchmark" + string(rec.Name)
			for _, v := range rec.Values {
				unit, val := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, val = v.OrigUnit, v.OrigValue
				}
				k := Key{name, unit}
				if _, ok := s.Samples[k]; !ok {
					s.Keys = append(s.Keys, k)
				}
				s.Samples[k] = append(s.Samples[k], val)
			}
		}
	}
	if lr.err != nil {
		return lr.err
	}
	if err := r.Err(); err != nil {
		return err
	}
	if !lr.nonBlank {
		return fmt.Errorf("%s: %w", fileName, errEmptyInput)
	}
	s.Units = r.Units()
	return nil
}

// finish checks the Set once all inputs are read; json names the inputs
// that look like `go test -json` output.
func (s *Set) finish(what string, json []string) (*Set, error) {
	var errs []error
	switch {
	case len(s.Keys) == 0 && len(json) > 0:
		errs = append(errs, fmt.Errorf("%s: %w: %s is %w (test2json) without benchmark results; were the benchmarks run (go test -json -run '^$' -bench . > file)?",
			what, ErrNoBenchmarks, strings.Join(json, ", "), ErrTestJSON))
	case len(s.Keys) == 0:
		errs = append(errs, fmt.Errorf("%s: %w", what, ErrNoBenchmarks))
	}
	if len(s.Malformed) > 0 {
		errs = append(errs, &MalformedError{Lines: s.Malformed})
	}
	return s, errors.Join(errs...)
}

// checkValues rejects a result line with a value that is NaN, infinite or
// negative, whatever its unit: every Go benchmark unit (ns/op, B/op,
// allocs/op, MB/s) is a non-negative magnitude, and the gate's relative
// change and direction assume one for custom units too.
func checkValues(r *benchfmt.Result) string {
	for _, v := range r.Values {
		unit, val := v.Unit, v.Value
		if v.OrigUnit != "" {
			unit, val = v.OrigUnit, v.OrigValue
		}
		if msg := badValue(val); msg != "" {
			return fmt.Sprintf("%s value %v: %s", unit, val, msg)
		}
	}
	return ""
}

// badValue says why v cannot be a measurement, or returns "".
func badValue(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "want a finite number"
	case v < 0:
		return "want a non-negative number"
	}
	return ""
}

// checkMetadata validates the values of the metadata keys benchgate uses.
func checkMetadata(m *benchfmt.UnitMetadata) string {
	switch m.Key {
	case "better":
		if m.Value != "higher" && m.Value != "lower" && m.Value != "none" {
			return fmt.Sprintf("unit %s: better=%s, want better=higher, better=lower or better=none", m.OrigUnit, m.Value)
		}
	case "gate":
		if _, err := ParseUnitGate(m.Value); err != nil {
			return fmt.Sprintf("unit %s: %v", m.OrigUnit, err)
		}
	case "assume":
		if m.Value != "nothing" && m.Value != "exact" {
			return fmt.Sprintf("unit %s: assume=%s, want assume=nothing or assume=exact", m.OrigUnit, m.Value)
		}
	}
	return ""
}

// Names returns the distinct benchmark names of s in first-seen order.
func (s *Set) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range s.Keys {
		if !seen[k.Name] {
			seen[k.Name] = true
			out = append(out, k.Name)
		}
	}
	return out
}
