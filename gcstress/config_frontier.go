package gcstress

import (
	"strconv"

	"github.com/writegc/writegc/gcstress/internal/plan"
	"github.com/writegc/writegc/internal/workload"
)

// validateFracLimits checks the GOMEMLIMIT each -memlimit-frac fraction
// becomes in bytes (plan.Grid): at least what -memlimit must be (one
// memtable per region and the runtime: a fraction that rounds to 0 bytes
// would run with no limit under a name that says so), and no two fractions
// that round to one point's name (two runs of "memlimit=256MiB").
func (c *Config) validateFracLimits() error {
	f := c.Frontier
	if f.Container <= 0 {
		return nil
	}
	need, _ := memNeed(c.Memstore, c.Regions)
	seen := map[string]float64{}
	for _, frac := range f.MemLimitFracs {
		st := plan.Grid([]int{100}, []float64{frac}, f.Container)[0]
		if frac > 0 && st.MemLimit < need {
			return usageErr("memlimit-frac", "%s: %s of -container %s is below what %d memtable(s) of -memstore %s need (%s): use a fraction of at least %.3g",
				fracText(frac), workload.FormatSize(st.MemLimit), workload.FormatSize(f.Container), c.Regions, workload.FormatSize(c.Memstore),
				workload.FormatSize(need), float64(need)/float64(f.Container))
		}
		name := settingName(st)
		if prev, ok := seen[name]; ok {
			return usageErr("memlimit-frac", "%s and %s are one setting (%s) once rounded: give settings that differ by at least 1 MiB",
				fracText(prev), fracText(frac), name[len("gogc=100,"):])
		}
		seen[name] = frac
	}
	return nil
}

// fracText is a fraction as -memlimit-frac takes it ("none", "0.5").
func fracText(x float64) string {
	if x == 0 {
		return "none"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
