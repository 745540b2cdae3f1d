package cli

import (
	"flag"
	"fmt"
	"slices"

	"github.com/writegc/writegc/gcstress"
	"github.com/writegc/writegc/gcstress/internal/frontier"
)

// frontierLists are the frontier's list flags, parsed after flag.Parse.
type frontierLists struct {
	gogc, fracs string
}

// defineFrontier defines -gogc (one value for every scenario, or the
// frontier's list) and the frontier's own flags.
func defineFrontier(fs *flag.FlagSet, c *gcstress.Config, l *frontierLists) {
	f := &c.Frontier
	fs.StringVar(&l.gogc, "gogc", "100", "GOGC of each child (-1 or off: off); with -scenario frontier a list, the grid's GOGC values: given, every setting of the grid runs (default there: 50,100,200,400,off, model-guided)")
	fs.Var(sizeFlag{&f.Container}, "container", "frontier: the container's memory (512MiB): every point's hard RSS cap, what -memlimit-frac is of, and what the recommendation must fit")
	fs.StringVar(&l.fracs, "memlimit-frac", "none,0.5,0.7,0.9", "frontier: the grid's GOMEMLIMIT settings as fractions of -container in (0,1] (none: no GOMEMLIMIT); given, every setting of the grid runs, else the model chooses where to measure")
	fs.Float64Var(&f.Headroom, "headroom", f.Headroom, "frontier: share of -container the recommendation keeps free for what the runtime cannot see (0 to below 1)")
	fs.DurationVar(&f.PointDuration, "point-duration", f.PointDuration, "frontier: the least run of each point (at least the warm-up plus 3 windows); it runs on for its GC cycles, up to 3 times this")
	fs.DurationVar(&f.ConfirmDuration, "confirm-duration", f.ConfirmDuration, "frontier: the least confirmation run at the recommended setting (longer than -point-duration)")
	fs.DurationVar(&f.Settle, "settle", f.Settle, "frontier: the cap on each run's settle phase: before its clock starts it writes closed loop until its memory (live heap plus off-heap bytes) is steady (0: start empty)")
}

// apply parses the lists into c: -gogc's one value is every child's GOGC
// (and the frontier's one-point GOGC list); a list of several is the
// frontier's alone.
func (l *frontierLists) apply(c *gcstress.Config, set map[string]bool) error {
	gogc, err := frontier.ParseGOGC(l.gogc)
	if err != nil {
		return usageErr("gogc", err)
	}
	onlyFrontier := len(c.Sets) > 0 && !slices.ContainsFunc(c.Sets, func(s string) bool { return s != gcstress.SetFrontier })
	switch {
	case len(gogc) == 1:
		c.GOGC = gogc[0]
	case !onlyFrontier:
		return usageErr("gogc", fmt.Errorf("%q: a list of GOGC values is for -scenario frontier alone; give one value (e.g. -gogc 100)", l.gogc))
	}
	if set["gogc"] {
		c.Frontier.GOGC = gogc
	}
	// A list given is the grid the user asked for: every setting runs.
	c.Frontier.Adaptive = !set["gogc"] && !set["memlimit-frac"]
	if c.Frontier.MemLimitFracs, err = frontier.ParseFracs(l.fracs); err != nil {
		return usageErr("memlimit-frac", err)
	}
	return nil
}
