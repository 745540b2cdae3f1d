package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
)

// Setting is one grid point's collector settings. A plain value.
type Setting struct {
	GOGC     int   // -1: off
	MemLimit int64 // GOMEMLIMIT bytes; 0: none
}

// GOGCOff is Setting.GOGC for GOGC=off.
const GOGCOff = -1

// Label is the setting as the reports name it: "GOGC 200 with GOMEMLIMIT
// 410 MiB", "GOGC off with no GOMEMLIMIT".
func (s Setting) Label() string {
	return fmt.Sprintf("GOGC %s with %s", gogcText(s.GOGC), limitText(s.MemLimit))
}

// Short is the setting as a chart labels a point: "200/410M", "off/-".
func (s Setting) Short() string {
	lim := "-"
	if s.MemLimit > 0 {
		lim = fmt.Sprintf("%.0fM", float64(s.MemLimit)/(1<<20))
	}
	return gogcText(s.GOGC) + "/" + lim
}

// IsDefault says whether s is Go's default: GOGC 100 and no GOMEMLIMIT.
func (s Setting) IsDefault() bool { return s.GOGC == 100 && s.MemLimit == 0 }

// Unbounded says whether s sets no bound on the heap: GOGC off with no
// GOMEMLIMIT, under which the collector never runs on its own.
func (s Setting) Unbounded() bool { return s.GOGC == GOGCOff && s.MemLimit == 0 }

func gogcText(g int) string {
	if g <= 0 {
		return "off"
	}
	return strconv.Itoa(g)
}

func limitText(b int64) string {
	if b <= 0 {
		return "no GOMEMLIMIT"
	}
	return "GOMEMLIMIT " + results.MiB(uint64(b))
}

// SettingOf is a point's setting.
func SettingOf(p results.FrontierPoint) Setting { return Setting{GOGC: p.GOGC, MemLimit: p.MemLimit} }

// The default grid: GOGC 50, 100, 200, 400 and off, by no GOMEMLIMIT and
// GOMEMLIMIT at 50%, 70% and 90% of the container.
var (
	DefaultGOGC  = []int{50, 100, 200, 400, GOGCOff}
	DefaultFracs = []float64{0, 0.5, 0.7, 0.9}
)

// MaxGrid bounds each list of the grid (a point is a child run of its
// own: 32 GOGC values by 32 limits is already hours per kind).
const MaxGrid = 32

// ErrGrid is a bad grid list (ParseGOGC, ParseFracs, CheckGrid).
var ErrGrid = errors.New("bad grid")

// ParseGOGC parses a GOGC list: "50,100,200,400,off" (off or -1: off).
// An empty list, a value that is not a positive integer, off or -1, and a
// value given twice are errors wrapping ErrGrid.
func ParseGOGC(list string) ([]int, error) {
	var out []int
	for _, f := range items(list) {
		g := GOGCOff
		if f != "off" {
			n, err := strconv.Atoi(f)
			if err != nil || (n <= 0 && n != GOGCOff) {
				return nil, fmt.Errorf("%w: GOGC %q: use positive percentages or off (e.g. 50,100,200,400,off)", ErrGrid, f)
			}
			g = n
		}
		if slices.Contains(out, g) {
			return nil, fmt.Errorf("%w: GOGC %s given twice", ErrGrid, gogcText(g))
		}
		out = append(out, g)
	}
	return out, checkLen("GOGC", len(out))
}

// ParseFracs parses a GOMEMLIMIT list in fractions of the container:
// "none,0.5,0.7,0.9" (none or off: no GOMEMLIMIT, 0 in the list; 50% is
// 0.5). A fraction outside (0,1], a value given twice and an empty list
// are errors wrapping ErrGrid.
func ParseFracs(list string) ([]float64, error) {
	var out []float64
	for _, f := range items(list) {
		v := 0.0
		if f != "none" && f != "off" {
			pct := strings.HasSuffix(f, "%")
			n, err := strconv.ParseFloat(strings.TrimSuffix(f, "%"), 64)
			if pct {
				n /= 100
			}
			if err != nil || !(n > 0 && n <= 1) {
				return nil, fmt.Errorf("%w: GOMEMLIMIT fraction %q outside (0,1]: use fractions of -container or none (e.g. none,0.5,0.7,0.9)", ErrGrid, f)
			}
			v = n
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%w: GOMEMLIMIT fraction %q given twice", ErrGrid, f)
		}
		out = append(out, v)
	}
	return out, checkLen("GOMEMLIMIT", len(out))
}

// items are list's comma-separated entries, trimmed and lower-cased,
// empty ones left out.
func items(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func checkLen(what string, n int) error {
	switch {
	case n == 0:
		return fmt.Errorf("%w: empty %s list: the grid has no point", ErrGrid, what)
	case n > MaxGrid:
		return fmt.Errorf("%w: %d %s values, at most %d", ErrGrid, n, what, MaxGrid)
	}
	return nil
}

// CheckGrid checks lists built by hand as ParseGOGC and ParseFracs check
// parsed ones.
func CheckGrid(gogc []int, fracs []float64) error {
	if err := checkLen("GOGC", len(gogc)); err != nil {
		return err
	}
	if err := checkLen("GOMEMLIMIT", len(fracs)); err != nil {
		return err
	}
	for i, g := range gogc {
		if g <= 0 && g != GOGCOff {
			return fmt.Errorf("%w: GOGC %d: use positive percentages or -1 (off)", ErrGrid, g)
		}
		if slices.Contains(gogc[:i], g) {
			return fmt.Errorf("%w: GOGC %s given twice", ErrGrid, gogcText(g))
		}
	}
	for i, f := range fracs {
		if f != 0 && !(f > 0 && f <= 1) {
			return fmt.Errorf("%w: GOMEMLIMIT fraction %g outside (0,1]", ErrGrid, f)
		}
		if slices.Contains(fracs[:i], f) {
			return fmt.Errorf("%w: GOMEMLIMIT fraction %g given twice", ErrGrid, f)
		}
	}
	return nil
}

// Grid is every GOGC x GOMEMLIMIT setting, GOGC major: a fraction f > 0
// is a GOMEMLIMIT of f x container bytes, 0 none.
func Grid(gogc []int, fracs []float64, container int64) []Setting {
	out := make([]Setting, 0, len(gogc)*len(fracs))
	for _, g := range gogc {
		for _, f := range fracs {
			s := Setting{GOGC: g}
			if f > 0 {
				s.MemLimit = int64(f * float64(container))
			}
			out = append(out, s)
		}
	}
	return out
}
