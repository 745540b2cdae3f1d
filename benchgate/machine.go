package benchgate

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Machine fingerprint keys. A benchmark file names the machine it ran on with
// benchfmt configuration lines ("cpu: ...", "goversion: ..."); Run writes
// them into both of its outputs and scripts/machine-header into every other
// file writegc writes.
//
// StrictMachineKeys are compared before a comparison: a base and a head
// measured where any of them differs are not comparable (ErrCrossMachine),
// since a different CPU, instruction set level, Go version or GOMAXPROCS moves
// every benchmark by more than the gate's threshold. gomaxprocs is read from
// the -N suffix of the benchmark names (the testing package's GOMAXPROCS) and
// else from a "gomaxprocs:" line.
//
// A strict key that a variable of the sides' environments sets (goversion
// by GOTOOLCHAIN, goamd64 by GOAMD64, goarch by GOARCH, gomaxprocs by
// GOMAXPROCS) may differ when that variable is what base and head compare:
// their `env:` lines (ConfigEnv, RunConfig.BaseEnv and HeadEnv) give it
// different values. Compare then notes the difference instead of refusing.
//
// NotedMachineKeys differing are reported as notes, never refused: the
// number of cores and the kernel change little on their own.
var (
	StrictMachineKeys = []string{"goos", "goarch", "goamd64", "goversion", "cpu", "gomaxprocs"}
	NotedMachineKeys  = []string{"nproc", "kernel"}
)

// MachineCheck is the result of CheckMachines: what differs between the
// machines of two sides and what could not be checked.
type MachineCheck struct {
	// Diffs name each strict key whose values differ, like
	// `cpu: base "AMD EPYC" vs head "Intel Xeon"`, or that holds several
	// values within one side. Any Diff makes the sides not comparable.
	Diffs []string
	// Unknown names each strict key that one side states and the other does
	// not: it is treated as unknown (a warning), not as a difference, so
	// that files written by hand or by older tools remain comparable.
	Unknown []string
	// Notes name each noted key that differs.
	Notes []string
}

// Fingerprint returns every value of every machine key (strict and noted)
// that s states: the distinct values in first-seen order, runs of blanks
// collapsed. A key s does not state is absent.
func (s *Set) Fingerprint() map[string][]string {
	fp := map[string][]string{}
	for _, k := range append(slices.Clone(StrictMachineKeys), NotedMachineKeys...) {
		var vals []string
		switch {
		case s.Configs != nil:
			vals = s.Configs[k]
		case s.Config != nil:
			if v, ok := s.Config[k]; ok {
				vals = []string{v}
			}
		}
		if k == "gomaxprocs" {
			if p := s.procs(); p != "" {
				vals = []string{p}
			}
		}
		var norm []string
		for _, v := range vals {
			// The testing package pads cpu with blanks; /proc/cpuinfo does not.
			if v = strings.Join(strings.Fields(v), " "); !slices.Contains(norm, v) {
				norm = append(norm, v)
			}
		}
		if len(norm) > 0 {
			fp[k] = norm
		}
	}
	return fp
}

var procsSuffix = regexp.MustCompile(`-([0-9]+)$`)

// procs returns the GOMAXPROCS values of the benchmark names' -N suffixes
// ("2", or "1,2,4" for a -cpu list), or "" when no name has one.
func (s *Set) procs() string {
	seen := map[int]bool{}
	for _, name := range s.Names() {
		if m := procsSuffix.FindStringSubmatch(name); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				seen[n] = true
			}
		}
	}
	var ns []int
	for n := range seen {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	var out []string
	for _, n := range ns {
		out = append(out, strconv.Itoa(n))
	}
	return strings.Join(out, ",")
}

// CheckMachines compares the fingerprints of a base and a head (see
// MachineCheck). The names ("base", "head", a thresholds file) label the
// messages.
func CheckMachines(baseName string, base map[string][]string, headName string, head map[string][]string) MachineCheck {
	var c MachineCheck
	for _, k := range StrictMachineKeys {
		b, h := base[k], head[k]
		switch {
		case len(b) > 1:
			c.Diffs = append(c.Diffs, fmt.Sprintf("%s: %s has %d values (%s)", k, baseName, len(b), quoteAll(b)))
		case len(h) > 1:
			c.Diffs = append(c.Diffs, fmt.Sprintf("%s: %s has %d values (%s)", k, headName, len(h), quoteAll(h)))
		case len(b) == 1 && len(h) == 1 && b[0] != h[0]:
			c.Diffs = append(c.Diffs, fmt.Sprintf("%s: %s %q vs %s %q", k, baseName, b[0], headName, h[0]))
		case len(b) == 0 && len(h) == 1:
			c.Unknown = append(c.Unknown, fmt.Sprintf("%s: unknown in %s (%s %q)", k, baseName, headName, h[0]))
		case len(b) == 1 && len(h) == 0:
			c.Unknown = append(c.Unknown, fmt.Sprintf("%s: unknown in %s (%s %q)", k, headName, baseName, b[0]))
		}
	}
	for _, k := range NotedMachineKeys {
		if b, h := base[k], head[k]; len(b) > 0 && len(h) > 0 && !slices.Equal(b, h) {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %s %s vs %s %s", k, baseName, quoteAll(b), headName, quoteAll(h)))
		}
	}
	return c
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
