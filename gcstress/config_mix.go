package gcstress

import (
	"reflect"

	"github.com/writegc/writegc/gcstress/internal/child"
	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/internal/workload"
)

// MaxPreload bounds Config.Preload: the zipfian's zeta sum costs one
// math.Pow per record (workload.MaxZipfItems).
const MaxPreload = workload.MaxZipfItems

// validateMix checks the mixed-workload settings: a known mix and key
// distribution, a zipfian theta in (0, 1), preloaded records for a mix
// that reads (and none for the write-only load), and kinds that serve the mix's reads (probeMix).
func (c *Config) validateMix() error {
	m, err := proto.Parse(c.Mix)
	if err != nil {
		return usageErr("mix", "%v (e.g. -mix b)", err)
	}
	// A bad -keydist or -zipf-theta is refused whatever the mix: the
	// write-only load has no use for them, but a typo must not pass.
	if c.KeyDist != "" {
		if _, err := workload.ParseKeyDist(c.KeyDist); err != nil {
			return usageErr("keydist", "%v (e.g. -keydist zipfian)", err)
		}
	}
	if c.ZipfTheta != 0 {
		if err := workload.CheckZipfTheta(c.ZipfTheta); err != nil {
			return usageErr("zipf-theta", "%v", err)
		}
	}
	if m.WriteOnly() {
		if c.Preload != 0 {
			// Nothing reads the records: a preload would only lengthen the
			// run and change what the write-only load measures.
			return usageErr("preload", "%d records with -mix %s: the write-only load reads no preloaded record; give -preload only with a mix that reads (e.g. -mix b -preload 100K)", c.Preload, m.Name)
		}
		return nil
	}
	if c.Preload < 1 {
		return usageErr("preload", "-mix %s reads preloaded records: give at least 1 (e.g. -preload 100K)", m.Name)
	}
	if c.Preload > MaxPreload {
		return usageErr("preload", "%d records: at most %d (e.g. -preload 1M)", c.Preload, int64(MaxPreload))
	}
	for _, k := range c.Kinds {
		if err := probeMix(c, k, m); err != nil {
			return usageErr("mix", "%v", err)
		}
	}
	return nil
}

// probeMix says whether kind serves mix m. writegc's region server (its
// own kinds and every memtable kind) does; a registered engine is built
// once, tiny, in this process and closed, to see whether it has Get and
// Scan. An engine that cannot be built passes: its scenario fails the
// same way it would without a mix.
func probeMix(c *Config, kind string, m proto.Mix) error {
	newE, err := engineFor(kind)
	if err != nil || reflect.ValueOf(newE).Pointer() == reflect.ValueOf(newServerEngine).Pointer() {
		return nil
	}
	s := Scenario{Name: "probe/" + kind, Group: SetMatrix, Kind: kind, Value: c.Values[0], Keys: 1,
		Memstore: c.Memstore, Regions: 1, Flushers: 1, Writers: 1, Path: PathServer, GOGC: c.GOGC,
		MaxPendingFlushes: 2, Seed: c.Seed, Thresholds: c.Thresholds}
	e, err := newE(s)
	if err != nil || e == nil {
		return nil
	}
	defer e.Close()
	return child.Support(kind, e, m)
}

// applyMix gives a matrix scenario the run's mix settings (nothing for
// the write-only w). Its Name gains the mix ("heap/100B/b"), so a results
// folder of several mixes keeps its rows apart.
func applyMix(c Config, s *Scenario) {
	if m, err := proto.Parse(c.Mix); err != nil || m.WriteOnly() {
		return
	}
	s.Mix, s.KeyDist, s.ZipfTheta, s.Preload, s.ReadTrace = c.Mix, c.KeyDist, c.ZipfTheta, c.Preload, c.ReadTrace
	if s.KeyDist == "" {
		s.KeyDist = string(workload.DistZipfian)
		if c.Mix == string(proto.D) {
			s.KeyDist = string(workload.DistLatest) // YCSB's workload D reads the latest inserts
		}
	}
	if s.ZipfTheta == 0 {
		s.ZipfTheta = workload.DefaultZipfTheta
	}
	s.Name += "/" + c.Mix
}
