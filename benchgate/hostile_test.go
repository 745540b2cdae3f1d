package benchgate

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Each result line with a NaN, infinite or negative value is malformed, named
// by file:line, and left out of the Set, whatever its unit.
func TestBadValuesAreMalformed(t *testing.T) {
	for _, tc := range []struct{ name, line, msg string }{
		{"NaN", "BenchmarkA-2 \t 10\tNaN ns/op", "ns/op value NaN: want a finite number"},
		{"Inf", "BenchmarkA-2 \t 10\t+Inf ns/op", "ns/op value +Inf: want a finite number"},
		{"infinity", "BenchmarkA-2 \t 10\tinfinity MB/s", "MB/s value +Inf: want a finite number"},
		{"-Inf", "BenchmarkA-2 \t 10\t-Inf B/op", "B/op value -Inf: want a finite number"},
		{"negative ns/op", "BenchmarkA-2 \t 10\t-5 ns/op", "ns/op value -5: want a non-negative number"},
		{"negative allocs/op", "BenchmarkA-2 \t 10\t5 ns/op\t-1 allocs/op", "allocs/op value -1"},
		{"negative custom", "BenchmarkA-2 \t 10\t5 ns/op\t-0.5 gc-pause-ns", "gc-pause-ns value -0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "BenchmarkA-2 \t 10\t7 ns/op\n" + tc.line + "\n"
			s, err := Parse(strings.NewReader(in), "in.txt")
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "in.txt:2: "+tc.msg) {
				t.Fatalf("err = %v, want ErrMalformed naming in.txt:2: %s", err, tc.msg)
			}
			for k, xs := range s.Samples {
				if len(xs) != 1 || xs[0] != 7 {
					t.Errorf("%v holds %v: the malformed line reached the Set", k, xs)
				}
			}
		})
	}
}

// A Set built by hand with a NaN would hang the U test; Compare refuses it
// (and ±Inf, negatives and empty samples) before any statistics run.
func TestCompareRefusesBadSamples(t *testing.T) {
	k := Key{"BenchmarkA-2", "ns/op"}
	good := []float64{10, 11, 10, 12, 10, 11, 10, 12, 10, 11}
	mk := func(xs []float64) *Set { return &Set{Keys: []Key{k}, Samples: map[Key][]float64{k: xs}} }
	for name, bad := range map[string][]float64{
		"NaN":      {10, math.NaN(), 10, 12, 10, 11, 10, 12, 10, 11},
		"+Inf":     {10, 11, math.Inf(1), 12, 10, 11, 10, 12, 10, 11},
		"-Inf":     {math.Inf(-1), 11, 10, 12, 10, 11, 10, 12, 10, 11},
		"negative": {-10, -11, -10, -12, -10, -11, -10, -12, -10, -11},
		"empty":    {},
	} {
		for _, side := range []string{"base", "head"} {
			b, h := mk(good), mk(bad)
			if side == "base" {
				b, h = h, b
			}
			done := make(chan error, 1)
			go func() { _, err := Compare(b, h, Options{}); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, errBadSample) || !strings.Contains(err.Error(), side) {
					t.Errorf("%s in %s: err = %v, want errBadSample naming the %s", name, side, err, side)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s in %s: Compare did not return", name, side)
			}
		}
	}
	if _, err := Compare(nil, mk(good), Options{}); !errors.Is(err, errBadSample) {
		t.Errorf("nil base: err = %v, want errBadSample", err)
	}
}

// NaN or infinite options, and values out of range, are errBadOption; before,
// a NaN threshold let a 30% regression pass.
func TestOptionsValidate(t *testing.T) {
	base := []float64{100, 101, 99, 100, 102, 100, 98, 100, 101, 99}
	head := []float64{130, 131, 129, 130, 132, 130, 128, 130, 131, 129} // +30%
	b := parseString(t, lines("BenchmarkA-2", "ns/op", base...))
	h := parseString(t, lines("BenchmarkA-2", "ns/op", head...))
	for _, o := range []Options{
		{Threshold: math.NaN()}, {Threshold: math.Inf(1)}, {Threshold: math.Inf(-1)}, {Threshold: 1.5},
		{Alpha: math.NaN()}, {Alpha: math.Inf(1)}, {Alpha: -0.01}, {Alpha: 1}, {Alpha: 2},
		{Accepted: []*Acceptance{nil}}, {Accepted: []*Acceptance{{Reason: "no pattern"}}},
	} {
		if err := o.Validate(); !errors.Is(err, errBadOption) {
			t.Errorf("%+v: Validate = %v, want errBadOption", o, err)
		}
		if rep, err := Compare(b, h, o); !errors.Is(err, errBadOption) || rep != nil {
			t.Errorf("%+v: Compare = %v, %v; want no report and errBadOption", o, rep, err)
		}
	}
	ok := Options{Alpha: 0.05, Threshold: MaxThreshold, Accepted: []*Acceptance{{Pattern: regexp.MustCompile("x"), Reason: "r"}}}
	for _, o := range []Options{{}, ok, {Threshold: -1}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: Validate = %v, want nil", o, err)
		}
	}
}

func TestRunConfigValidate(t *testing.T) {
	for _, c := range []RunConfig{
		{}, {Base: "HEAD", Count: -1}, {Base: "HEAD", Count: MaxCount + 1},
		{Base: "HEAD", Nice: 20}, {Base: "HEAD", Nice: -21}, {Base: "HEAD", Timeout: -time.Second},
	} {
		if _, err := Run(t.Context(), c); !errors.Is(err, errBadOption) {
			t.Errorf("%+v: Run = %v, want errBadOption", c, err)
		}
	}
}

// /dev/zero is a device, not a file: refused before a byte is read, at once.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	start := time.Now()
	_, err := ParseFiles("/dev/zero")
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero: a character device") {
		t.Errorf("err = %v, want ErrNotRegular naming /dev/zero", err)
	}
	if _, err := ReadAccepted("/dev/zero"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadAccepted: err = %v, want ErrNotRegular", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// endless repeats one valid line forever.
type endless struct{ line string }

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.line[i%len(e.line)]
	}
	return len(p) - len(p)%len(e.line), nil
}

func TestSizeLimits(t *testing.T) {
	valid := "BenchmarkA-2 \t 10\t5 ns/op\n"
	if _, err := (Parser{MaxBytes: 1 << 20}).Parse(endless{valid}, "stream"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "stream: more than") {
		t.Errorf("endless stream: err = %v, want ErrTooLarge", err)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat(valid, 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Parser{MaxBytes: 1000}).ParseFiles(big); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "bytes, more than the limit of 1000") {
		t.Errorf("big file: err = %v, want ErrTooLarge from its size", err)
	}
	// The longest line allowed still parses; one byte more is refused by line.
	name := "BenchmarkA" + strings.Repeat("x", DefaultMaxLineBytes-len("BenchmarkA-2 10 5 ns/op"))
	longest := name + "-2 10 5 ns/op"
	for _, tc := range []struct {
		line string
		ok   bool
	}{{longest, true}, {longest + " ", false}} {
		path := filepath.Join(dir, "long.txt")
		if err := os.WriteFile(path, []byte(valid+tc.line+"\n"+valid), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := ParseFiles(path)
		switch {
		case tc.ok && (err != nil || len(s.Keys) != 2):
			t.Errorf("line of %d bytes: err = %v, want two keys", len(tc.line), err)
		case !tc.ok && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "long.txt:2: line longer")):
			t.Errorf("line of %d bytes: err = %v, want ErrTooLarge naming long.txt:2", len(tc.line), err)
		}
	}
	if _, err := ParseAccepted(strings.NewReader("^a ok\n"+strings.Repeat("b", DefaultMaxLineBytes+1)), "acc.txt"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "acc.txt:2") {
		t.Errorf("accept file: err = %v, want ErrTooLarge naming acc.txt:2", err)
	}
	for _, p := range []Parser{{MaxBytes: -1}, {MaxLineBytes: -1}, {MaxLineBytes: DefaultMaxLineBytes + 1}} {
		if _, err := p.Parse(strings.NewReader(valid), "x"); !errors.Is(err, errBadOption) {
			t.Errorf("%+v: err = %v, want errBadOption", p, err)
		}
	}
}
