package cli

import (
	"flag"
	"fmt"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/internal/proto"
	"github.com/writegc/writegc/internal/workload"
)

// defineMixFlags defines -mix, -keydist, -zipf-theta, -preload and
// -trace on fs, writing into c (-preload into r, applied by applyMix);
// -read-trace, its older name for mixes only, is a deprecated synonym.
func defineMixFlags(fs *flag.FlagSet, c *gcstress.Config, r *runFlags) {
	fs.StringVar(&c.Mix, "mix", c.Mix, "operation mix of the matrix scenarios, after YCSB: a (50% read, 50% update), b (95/5), c (100% read), "+
		"d (95% read of the latest, 5% insert), e (95% scans of 1-100 records, 5% insert), f (50% read, 50% read-modify-write), "+
		"w (write only: every scenario as without -mix); with a mix, -keys and -rate count operations ("+proto.Names()+")")
	fs.StringVar(&c.KeyDist, "keydist", "", "key distribution of a mix's reads, updates and scans: zipfian (scrambled, hot keys spread), uniform, latest (default: zipfian; latest for mix d, YCSB's read-latest)")
	fs.Float64Var(&c.ZipfTheta, "zipf-theta", c.ZipfTheta, "zipfian skew of -keydist zipfian and latest, in (0, 1)")
	fs.StringVar(&r.preload, "preload", "", fmt.Sprintf("records inserted before a mix's measured phase, reported apart (default %s for a mix; -mix c needs at least 1)", workload.FormatCount(proto.DefaultPreload)))
	fs.Var(offFlag{&c.NoTrace}, "trace", "trace each measured phase (runtime/trace, at most 64 MiB or 30 s): the MMU, each timed operation's mark assists and a mix's reads in mark phases; false: those figures n/a")
	fs.BoolVar(&c.ReadTrace, "read-trace", c.ReadTrace, "trace a mix's measured phase (deprecated: -trace)")
	r.deprecated["read-trace"] = "-trace"
}

// applyMix parses -preload (the default for a mix that reads when not
// given) and refuses a -zipf-theta given out of range.
func (r *runFlags) applyMix(c *gcstress.Config) error {
	if r.set["zipf-theta"] {
		if err := workload.CheckZipfTheta(c.ZipfTheta); err != nil {
			return usageErr("zipf-theta", err)
		}
	}
	if r.preload != "" {
		n, err := workload.ParseCount(r.preload)
		if err != nil {
			return usageErr("preload", err)
		}
		c.Preload = n
	} else if m, err := proto.Parse(c.Mix); err == nil && m.NeedsPreload() {
		c.Preload = proto.DefaultPreload
	}
	return nil
}
