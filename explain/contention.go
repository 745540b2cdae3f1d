package explain

import (
	"fmt"
	"time"

	"github.com/google/pprof/profile"
)

// ContentionAccount summarises a mutex or block profile: how long
// goroutines waited (delay) and at which of the program's functions.
type ContentionAccount struct {
	File string
	// Type is TypeMutex or TypeBlock.
	Type FileType
	// Contentions counts events; Delay is the summed wait.
	Contentions int64
	Delay       time.Duration
	// Sites are the top functions by delay.
	Sites []Site
}

func analyzeContention(path string, typ FileType, p *profile.Profile, opts Options) (*ContentionAccount, error) {
	ci, di := valueIndex(p, "contentions"), valueIndex(p, "delay")
	if di < 0 {
		return nil, fmt.Errorf("explain: %s: %w: %s profile without delay values", path, ErrUnsupported, typ)
	}
	attr := opts.attributor()
	acc := &ContentionAccount{File: path, Type: typ}
	tally := map[string]int64{}
	var delay int64
	for _, s := range p.Sample {
		if max(ci, di) >= len(s.Value) {
			return nil, fmt.Errorf("explain: %s: %w: sample with %d values, want %d", path, ErrCorrupt, len(s.Value), len(p.SampleType))
		}
		if ci >= 0 {
			acc.Contentions += s.Value[ci]
		}
		delay += s.Value[di]
		tally[attr.pick(frames(s))] += s.Value[di]
	}
	acc.Delay = time.Duration(delay)
	acc.Sites = topSites(tally, delay, opts.top())
	return acc, nil
}
