package engines

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/writegc/writegc/internal/usage"
	"github.com/writegc/writegc/internal/workload"
)

// ErrUsage wraps every bad engine option; the message names the flag. It is
// writegc's one usage sentinel (internal/usage), the one gcstress wraps.
var ErrUsage = usage.ErrUsage

// ErrClosed is returned by Put after Close started.
var ErrClosed = errors.New("engine closed")

// Defaults of the engine options.
const (
	DefaultRistrettoBudget int64 = 256 << 20 // ristretto MaxCost, bytes
	DefaultPebbleMemtables int   = 2         // Pebble's MemTableStopWritesThreshold default
	DefaultBadgerMemtables int   = 5         // Badger's NumMemtables default
	// DefaultCacheBudget is fastcache's, otter's and shardmap's capacity:
	// the size a user would give a cache in a service, not a benchmark's.
	DefaultCacheBudget int64 = 128 << 20

	// The bounds of every cache budget (-ristretto-budget and the others):
	// below 1 MiB a 10 KB entry barely fits; above 1 TiB is no budget this
	// machine or its tests can hold.
	MinRistrettoBudget int64 = 1 << 20
	MaxRistrettoBudget int64 = 1 << 40
)

// Options are the peer engines' own settings, beyond what a gcstress
// Scenario says. A plain value.
type Options struct {
	// RistrettoBudget is the cache's MaxCost in bytes (cost = key+value
	// bytes), -ristretto-budget.
	RistrettoBudget int64
	// PebbleMemtables is Pebble's MemTableStopWritesThreshold: queued
	// memtables before writes stall, -pebble-memtables.
	PebbleMemtables int
	// BadgerMemtables is Badger's NumMemtables, -badger-memtables.
	BadgerMemtables int
	// FastcacheBudget is fastcache's maxBytes (its chunks, mmap'd),
	// -fastcache-budget.
	FastcacheBudget int64
	// OtterBudget is otter's MaximumWeight in key+value bytes,
	// -otter-budget.
	OtterBudget int64
	// ShardmapBudget is the sharded map's bound in key+value bytes,
	// -shardmap-budget.
	ShardmapBudget int64
}

// optFlag is one engine option: its flag name, environment variable and
// usage text.
type optFlag struct {
	name, env, usage string
	get              func(*Options) string
	set              func(*Options, string) error
}

var optFlags = []optFlag{
	{"ristretto-budget", "WRITEGC_PEERS_RISTRETTO_BUDGET", "ristretto: MaxCost in key+value bytes (e.g. 256MiB, 64MB)",
		func(o *Options) string { return strconv.FormatInt(o.RistrettoBudget, 10) },
		func(o *Options, s string) error {
			return parseSize(s, &o.RistrettoBudget, MinRistrettoBudget, MaxRistrettoBudget)
		}},
	{"pebble-memtables", "WRITEGC_PEERS_PEBBLE_MEMTABLES", "pebble: memtables queued for flush before writes stall (MemTableStopWritesThreshold, 2..64)",
		func(o *Options) string { return strconv.Itoa(o.PebbleMemtables) },
		func(o *Options, s string) error { return parseInt(s, &o.PebbleMemtables, 2, 64) }},
	{"badger-memtables", "WRITEGC_PEERS_BADGER_MEMTABLES", "badger: memtables kept in memory (NumMemtables, 1..64)",
		func(o *Options) string { return strconv.Itoa(o.BadgerMemtables) },
		func(o *Options, s string) error { return parseInt(s, &o.BadgerMemtables, 1, 64) }},
	budgetFlag("fastcache-budget", "WRITEGC_PEERS_FASTCACHE_BUDGET", "fastcache: maxBytes, the mmap'd chunks holding key+value+4 bytes per entry (its own minimum is 32MiB)",
		func(o *Options) *int64 { return &o.FastcacheBudget }),
	budgetFlag("otter-budget", "WRITEGC_PEERS_OTTER_BUDGET", "otter: MaximumWeight in key+value bytes",
		func(o *Options) *int64 { return &o.OtterBudget }),
	budgetFlag("shardmap-budget", "WRITEGC_PEERS_SHARDMAP_BUDGET", "shardmap: key+value bytes held before the oldest entries are evicted",
		func(o *Options) *int64 { return &o.ShardmapBudget }),
}

// budgetFlag is a cache's byte budget option, within the bounds of
// -ristretto-budget.
func budgetFlag(name, env, usage string, field func(*Options) *int64) optFlag {
	return optFlag{name, env, usage + " (e.g. 128MiB)",
		func(o *Options) string { return strconv.FormatInt(*field(o), 10) },
		func(o *Options, s string) error {
			return parseSize(s, field(o), MinRistrettoBudget, MaxRistrettoBudget)
		}}
}

// DefaultOptions are the options with no flag and no environment.
func DefaultOptions() Options {
	return Options{RistrettoBudget: DefaultRistrettoBudget, PebbleMemtables: DefaultPebbleMemtables, BadgerMemtables: DefaultBadgerMemtables,
		FastcacheBudget: DefaultCacheBudget, OtterBudget: DefaultCacheBudget, ShardmapBudget: DefaultCacheBudget}
}

func parseSize(s string, dst *int64, lo, hi int64) error {
	n, err := workload.ParseSize(s)
	if err != nil {
		return err
	}
	if n < lo || n > hi {
		return fmt.Errorf("%s is outside %s..%s", s, workload.FormatSize(lo), workload.FormatSize(hi))
	}
	*dst = n
	return nil
}

func parseInt(s string, dst *int, lo, hi int) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	if n < lo || n > hi {
		return fmt.Errorf("%d is outside %d..%d", n, lo, hi)
	}
	*dst = n
	return nil
}

// OptionsFromEnv is DefaultOptions overridden by the environment variables
// Export sets (the child's side). A malformed variable is an error wrapping
// ErrUsage naming its flag.
func OptionsFromEnv() (Options, error) {
	o := DefaultOptions()
	for _, f := range optFlags {
		if v, ok := os.LookupEnv(f.env); ok {
			if err := f.set(&o, v); err != nil {
				return o, fmt.Errorf("%w: -%s (from %s): %v", ErrUsage, f.name, f.env, err)
			}
		}
	}
	return o, nil
}

// Export sets o in the process environment, which the scenarios' child
// processes inherit. Not safe concurrently with other environment changes.
func (o Options) Export() error {
	for _, f := range optFlags {
		if err := os.Setenv(f.env, f.get(&o)); err != nil {
			return err
		}
	}
	return nil
}

// String is the options as flags, for logs.
func (o Options) String() string {
	parts := make([]string, len(optFlags))
	for i, f := range optFlags {
		parts[i] = "-" + f.name + "=" + f.get(&o)
	}
	return strings.Join(parts, " ")
}

// Usage is the engine options' help text, one flag per two lines as the
// flag package prints them.
func Usage() string {
	var b strings.Builder
	d := DefaultOptions()
	for _, f := range optFlags {
		fmt.Fprintf(&b, "  -%s value\n    \t%s (default %s)\n", f.name, f.usage, f.get(&d))
	}
	return b.String()
}

// SplitArgs takes the engine options out of args (-name value, -name=value,
// with one or two dashes), starting from base, and returns the options and
// the other arguments in order, for gcstress's command. A bad value or a
// missing one is an error wrapping ErrUsage that names the flag. Arguments
// after "--" are left alone.
func SplitArgs(base Options, args []string) (Options, []string, error) {
	o := base
	rest := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		f, val, hasVal := matchFlag(a)
		if f == nil {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return o, nil, fmt.Errorf("%w: -%s: missing value", ErrUsage, f.name)
			}
			i++
			val = args[i]
		}
		if err := f.set(&o, val); err != nil {
			return o, nil, fmt.Errorf("%w: -%s: %v", ErrUsage, f.name, err)
		}
	}
	return o, rest, nil
}

// matchFlag finds the engine option arg names, with its inline value.
func matchFlag(arg string) (f *optFlag, val string, hasVal bool) {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return nil, "", false
	}
	name = strings.TrimPrefix(name, "-")
	name, val, hasVal = strings.Cut(name, "=")
	for i := range optFlags {
		if optFlags[i].name == name {
			return &optFlags[i], val, hasVal
		}
	}
	return nil, "", false
}
