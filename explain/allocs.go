package explain

import (
	"fmt"

	"github.com/google/pprof/profile"
)

// AllocAccount lists where a heap or allocs profile's objects and bytes
// come from. Mode "alloc" reads alloc_objects/alloc_space (everything
// allocated in the profile's window: since the program started, or the
// capture window for a Capture's allocs.pprof); mode "inuse" reads
// inuse_objects/inuse_space (live at the last completed GC before the
// snapshot).
type AllocAccount struct {
	File string
	Mode string
	// Objects and Bytes are the profile's totals (estimates scaled from
	// the sampling rate, as pprof reports them).
	Objects, Bytes int64
	// ByObjects and ByBytes are the top sites, attributed to the first
	// frame outside runtime and library code.
	ByObjects, ByBytes []Site
}

func analyzeAllocs(path string, p *profile.Profile, mode string, opts Options) (*AllocAccount, error) {
	oi, bi := valueIndex(p, mode+"_objects"), valueIndex(p, mode+"_space")
	if oi < 0 && bi < 0 {
		return nil, fmt.Errorf("explain: %s: %w: no %s_objects or %s_space values", path, ErrUnsupported, mode, mode)
	}
	attr := opts.attributor()
	objs, bytes := map[string]int64{}, map[string]int64{}
	acc := &AllocAccount{File: path, Mode: mode}
	for _, s := range p.Sample {
		if max(oi, bi) >= len(s.Value) {
			return nil, fmt.Errorf("explain: %s: %w: sample with %d values, want %d", path, ErrCorrupt, len(s.Value), len(p.SampleType))
		}
		site := attr.pick(frames(s))
		if oi >= 0 && s.Value[oi] > 0 {
			objs[site] += s.Value[oi]
			acc.Objects += s.Value[oi]
		}
		if bi >= 0 && s.Value[bi] > 0 {
			bytes[site] += s.Value[bi]
			acc.Bytes += s.Value[bi]
		}
	}
	acc.ByObjects = topSites(objs, acc.Objects, opts.top())
	acc.ByBytes = topSites(bytes, acc.Bytes, opts.top())
	return acc, nil
}
