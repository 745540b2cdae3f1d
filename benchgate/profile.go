package benchgate

import (
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/google/pprof/profile"
)

// DefaultProfileTop is how many functions a ProfileDiff lists.
const DefaultProfileTop = 8

// ProfileFiles are the profiles Run captured of one regressed benchmark:
// the base's and the head's CPU profile and allocation profile (paths; ""
// when not captured).
type ProfileFiles struct {
	Benchmark        string
	BaseCPU, HeadCPU string
	BaseMem, HeadMem string
}

// FuncShare is one function's share of a profile's samples in base and head:
// flat (samples whose innermost frame is the function) and cum (samples with
// the function anywhere on the stack), as fractions of each profile's total.
type FuncShare struct {
	Func               string
	BaseFlat, HeadFlat float64
	BaseCum, HeadCum   float64
}

// Growth is the rise of the flat share from base to head.
func (f FuncShare) Growth() float64 { return f.HeadFlat - f.BaseFlat }

// ProfileDiff says where a regressed benchmark's samples moved: the
// functions whose flat share grew most from base to head. It is a plain
// value.
type ProfileDiff struct {
	Benchmark  string
	SampleType string // "cpu" (CPU time) or "alloc_space" (bytes allocated)
	Funcs      []FuncShare
	// Err says why there is no comparison (a profile missing or unreadable).
	Err string
}

// DiffProfiles compares the shares of sampleType ("cpu", "alloc_space", any
// sample type the profiles have) per function and returns the top functions
// whose flat share grew, largest growth first (ties by name). Shares are of
// each profile's own total, so a profile that is merely longer or shorter
// does not move them.
func DiffProfiles(base, head *profile.Profile, sampleType string, top int) ([]FuncShare, error) {
	bs, err := shares(base, sampleType)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	hs, err := shares(head, sampleType)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	var out []FuncShare
	for name, h := range hs {
		b := bs[name]
		f := FuncShare{Func: name, BaseFlat: b[0], HeadFlat: h[0], BaseCum: b[1], HeadCum: h[1]}
		if f.Growth() > 0 {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b FuncShare) int {
		if c := cmp.Compare(b.Growth(), a.Growth()); c != 0 {
			return c
		}
		return cmp.Compare(a.Func, b.Func)
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out, nil
}

// shares returns, per function name, its flat and cum share of sampleType.
func shares(p *profile.Profile, sampleType string) (map[string][2]float64, error) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == sampleType {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("no sample type %q in the profile", sampleType)
	}
	sums := map[string][2]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[idx]
		total += v
		seen := map[string]bool{}
		for i, loc := range s.Location {
			for j, line := range loc.Line {
				name := "?"
				if line.Function != nil {
					name = line.Function.Name
				}
				c := sums[name]
				if i == 0 && j == 0 {
					c[0] += v
				}
				if !seen[name] {
					seen[name] = true
					c[1] += v
				}
				sums[name] = c
			}
		}
	}
	out := make(map[string][2]float64, len(sums))
	for name, c := range sums {
		if total > 0 {
			out[name] = [2]float64{float64(c[0]) / float64(total), float64(c[1]) / float64(total)}
		}
	}
	return out, nil
}

// DiffProfileFiles reads the profiles Run captured and compares each pair
// (CPU by "cpu", allocations by "alloc_space"), top functions each. A pair
// that cannot be read yields a ProfileDiff with Err set, not an error: the
// profiles explain a regression, they do not decide it.
func DiffProfileFiles(files []ProfileFiles, top int) []ProfileDiff {
	var out []ProfileDiff
	for _, f := range files {
		for _, pair := range []struct{ typ, base, head string }{
			{"cpu", f.BaseCPU, f.HeadCPU}, {"alloc_space", f.BaseMem, f.HeadMem},
		} {
			d := ProfileDiff{Benchmark: f.Benchmark, SampleType: pair.typ}
			funcs, err := diffFiles(pair.base, pair.head, pair.typ, top)
			if err != nil {
				d.Err = err.Error()
			}
			d.Funcs = funcs
			out = append(out, d)
		}
	}
	return out
}

func diffFiles(basePath, headPath, typ string, top int) ([]FuncShare, error) {
	if basePath == "" || headPath == "" {
		return nil, fmt.Errorf("not captured")
	}
	b, err := readProfile(basePath)
	if err != nil {
		return nil, err
	}
	h, err := readProfile(headPath)
	if err != nil {
		return nil, err
	}
	return DiffProfiles(b, h, typ, top)
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
