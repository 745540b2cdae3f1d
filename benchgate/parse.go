package benchgate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
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
// then be shared between goroutines. Its size is proportional to the number of
// result lines read; nothing is capped.
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
// carries across files). See Parse for the errors; an unreadable file is
// returned as the os error.
func ParseFiles(paths ...string) (*Set, error) {
	s := newSet()
	r := benchfmt.NewReader(bytes.NewReader(nil), "")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return nil, fmt.Errorf("%s: %w", p, ErrEmptyInput)
		}
		r.Reset(bytes.NewReader(data), p)
		if err := s.read(r, p); err != nil {
			return nil, err
		}
	}
	return s.finish(strings.Join(paths, ", "))
}

// Parse reads one benchmark file. fileName is used in messages only.
//
// It returns ErrEmptyInput (and no Set) for an input with no non-blank bytes
// and ErrNoBenchmarks for one without result lines. Malformed lines do not stop
// parsing: Parse returns the Set together with a *MalformedError that lists
// them, and the caller decides whether that is fatal.
func Parse(in io.Reader, fileName string) (*Set, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: %w", fileName, ErrEmptyInput)
	}
	s := newSet()
	if err := s.read(benchfmt.NewReader(bytes.NewReader(data), fileName), fileName); err != nil {
		return nil, err
	}
	return s.finish(fileName)
}

func newSet() *Set {
	return &Set{Samples: map[Key][]float64{}, Config: map[string]string{}}
}

func (s *Set) read(r *benchfmt.Reader, fileName string) error {
	s.Files = append(s.Files, fileName)
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
			for _, c := range rec.Config {
				if _, ok := s.Config[c.Key]; !ok {
					s.Config[c.Key] = string(c.Value)
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
	if err := r.Err(); err != nil {
		return err
	}
	s.Units = r.Units()
	return nil
}

func (s *Set) finish(what string) (*Set, error) {
	var errs []error
	if len(s.Keys) == 0 {
		errs = append(errs, fmt.Errorf("%s: %w", what, ErrNoBenchmarks))
	}
	if len(s.Malformed) > 0 {
		errs = append(errs, &MalformedError{Lines: s.Malformed})
	}
	return s, errors.Join(errs...)
}

// checkMetadata validates the values of the metadata keys benchgate uses.
func checkMetadata(m *benchfmt.UnitMetadata) string {
	switch m.Key {
	case "better":
		if m.Value != "higher" && m.Value != "lower" && m.Value != "none" {
			return fmt.Sprintf("unit %s: better=%s, want better=higher, better=lower or better=none", m.OrigUnit, m.Value)
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
