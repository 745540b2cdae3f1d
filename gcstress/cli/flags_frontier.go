package cli

import (
	"flag"
	"fmt"
	"slices"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/internal/plan"
)

// frontierLists are the frontier's list flags, parsed after flag.Parse.
type frontierLists struct {
	gogc, fracs string
}

// defineFrontier defines the frontier subcommand's own flags.
func (r *runFlags) defineFrontier(fs *flag.FlagSet, c *gcstress.Config) {
	fs.StringVar(&r.frontier.gogc, "gogc", "50,100,200,400,off", "the grid's GOGC values, comma-separated (-1 or off: off)")
	fs.StringVar(&r.values, "values", "100", "the value size (one)")
	fs.StringVar(&r.rate, "rate", "", "the store's rate (20MB/s, 50Kops/s); default: probed, the highest rate it sustains healthy")
	fs.DurationVar(&c.SLO, "slo", c.SLO, "a setting's p99 latency from intended start must stay within this (0: no latency limit)")
	fs.DurationVar(&c.StepDuration, "step-duration", c.StepDuration, "length of each step of the rate probe without -rate")
	fs.DurationVar(&c.Window, "window", c.Window, "sampling window")
	fs.BoolVar(&r.grid, "grid", false, "measure every setting of -gogc x -memlimit-frac (default: the model chooses where to measure among them)")
	r.defineFrontierOwn(fs, c)
}

// defineFrontierOwn defines the frontier's container and run flags (also
// the all path's deprecated synonyms).
func (r *runFlags) defineFrontierOwn(fs *flag.FlagSet, c *gcstress.Config) {
	f := &c.Frontier
	fs.Var(sizeFlag{&f.Container}, "container", "the container's memory (512MiB): every point's hard RSS cap, what -memlimit-frac is of, and what the recommendation must fit")
	fs.StringVar(&r.frontier.fracs, "memlimit-frac", "none,0.5,0.7,0.9", "the grid's GOMEMLIMIT settings as fractions of -container in (0,1] (none: no GOMEMLIMIT)")
	fs.Float64Var(&f.Headroom, "headroom", f.Headroom, "share of -container the recommendation keeps free for what the runtime cannot see (0 to below 1)")
	fs.DurationVar(&f.PointDuration, "point-duration", f.PointDuration, "the least run of each point (at least the warm-up plus 3 windows); it runs on for its GC cycles, up to 3 times this")
	fs.DurationVar(&f.ConfirmDuration, "confirm-duration", f.ConfirmDuration, "the least confirmation run at the recommended setting (longer than -point-duration)")
	fs.DurationVar(&f.Settle, "settle", f.Settle, "the cap on each run's settle phase: before its clock starts it writes closed loop until its memory (live heap plus off-heap bytes) is steady (0: start empty)")
}

// applyFrontier parses the frontier's lists: on the frontier subcommand
// -gogc is the grid's GOGC values and -grid says whether every setting
// runs; on the all path the old rules stay (a list of GOGC values only
// with -scenario frontier alone, and a list given is the grid).
func (r *runFlags) applyFrontier(c *gcstress.Config) error {
	gogc, err := plan.ParseGOGC(r.frontier.gogc)
	if err != nil {
		return usageErr("gogc", err)
	}
	if c.Frontier.MemLimitFracs, err = plan.ParseFracs(r.frontier.fracs); err != nil {
		return usageErr("memlimit-frac", err)
	}
	if r.sub == gcstress.SetFrontier {
		if c.CapacityValues, err = parseSizes(r.values); err != nil {
			return usageErr("values", err)
		}
		if c.Rate, err = gcstress.ParseRate(r.rate); err != nil {
			return usageErr("rate", err)
		}
		c.Frontier.GOGC, c.Frontier.Adaptive = gogc, !r.grid
		if len(gogc) == 1 {
			c.GOGC = gogc[0]
		}
		return nil
	}
	onlyFrontier := len(c.Sets) > 0 && !slices.ContainsFunc(c.Sets, func(s string) bool { return s != gcstress.SetFrontier })
	switch {
	case len(gogc) == 1:
		c.GOGC = gogc[0]
	case !onlyFrontier:
		return usageErr("gogc", fmt.Errorf("%q: a list of GOGC values is for gcstress frontier alone; give one value (e.g. -gogc 100)", r.frontier.gogc))
	}
	if r.set["gogc"] {
		c.Frontier.GOGC = gogc
	}
	c.Frontier.Adaptive = !r.set["gogc"] && !r.set["memlimit-frac"]
	return nil
}
