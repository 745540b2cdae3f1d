package offheapprobe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Sentinel errors of the parsers.
var (
	// ErrMalformed: input that is not in the kernel's format.
	ErrMalformed = errors.New("offheapprobe: malformed input")
	// ErrTooLarge: input beyond a parser's limits (bytes, lines, entries).
	ErrTooLarge = errors.New("offheapprobe: input beyond limits")
)

// Limits of the parsers, checked before anything is kept.
const (
	MaxVmstatBytes   = 1 << 20  // /proc/vmstat is about 10 KB
	MaxVmstatEntries = 4096     // about 200 on a 6.x kernel
	MaxSmapsBytes    = 64 << 20 // about 1.5 KB per mapping
	MaxMappings      = 1 << 17  // twice vm.max_map_count's default (65530)
	maxLine          = 8 << 10  // a path is at most 4096 bytes
)

// VmstatKept says which /proc/vmstat counters ParseVmstat keeps: the page
// fault totals, the free page count, and every counter of transparent huge
// pages, compaction, NUMA placement and page reclaim (direct and kswapd).
func VmstatKept(name string) bool {
	switch name {
	case "pgfault", "pgmajfault", "nr_free_pages":
		return true
	}
	for _, p := range []string{"thp_", "compact_", "numa_", "allocstall_", "pgscan_", "pgsteal_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// ParseVmstat reads /proc/vmstat ("name value" per line) and returns the
// counters VmstatKept selects. A line that is not a lower-case name and a
// decimal count, a repeated name, more than MaxVmstatBytes or more than
// MaxVmstatEntries lines is an error.
func ParseVmstat(r io.Reader) (map[string]int64, error) {
	sc, lim := limitedScanner(r, MaxVmstatBytes)
	out := map[string]int64{}
	seen := map[string]bool{}
	for n := 0; sc.Scan(); n++ {
		if n >= MaxVmstatEntries {
			return nil, fmt.Errorf("%w: vmstat has more than %d lines", ErrTooLarge, MaxVmstatEntries)
		}
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || !validName(name) {
			return nil, fmt.Errorf("%w: vmstat line %d %.40q", ErrMalformed, n+1, sc.Text())
		}
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%w: vmstat %s value %.40q", ErrMalformed, name, val)
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: vmstat %s twice", ErrMalformed, name)
		}
		seen[name] = true
		if VmstatKept(name) {
			out[name] = v
		}
	}
	return out, scanErr(sc, lim, "vmstat", MaxVmstatBytes)
}

// validName reports whether s is a counter name: [a-z0-9_]+, at most 64 bytes.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// limitedScanner scans lines of r, reading at most max+1 bytes (so that
// scanErr can tell a file that was cut from one that fits).
func limitedScanner(r io.Reader, max int64) (*bufio.Scanner, *io.LimitedReader) {
	lim := &io.LimitedReader{R: r, N: max + 1}
	sc := bufio.NewScanner(lim)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	return sc, lim
}

// scanErr is the error that ended sc, if any: a read error, a line over
// maxLine, or input over max bytes.
func scanErr(sc *bufio.Scanner, lim *io.LimitedReader, what string, max int64) error {
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%w: %s line longer than %d bytes", ErrTooLarge, what, maxLine)
	} else if err != nil {
		return fmt.Errorf("offheapprobe: reading %s: %w", what, err)
	}
	if lim.N <= 0 {
		return fmt.Errorf("%w: %s larger than %d bytes", ErrTooLarge, what, max)
	}
	return nil
}

// ParseTHPChoice returns the selected word of a sysfs choice file such as
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"):
// the one in brackets. Input over 4 KiB, or with no or several bracketed
// words, is an error.
func ParseTHPChoice(b []byte) (string, error) {
	if len(b) > 4096 {
		return "", fmt.Errorf("%w: THP setting of %d bytes", ErrTooLarge, len(b))
	}
	var sel []string
	for _, w := range bytes.Fields(b) {
		if len(w) >= 3 && w[0] == '[' && w[len(w)-1] == ']' {
			sel = append(sel, string(w[1:len(w)-1]))
		}
	}
	if len(sel) != 1 || !validName(strings.ReplaceAll(sel[0], "+", "_")) {
		return "", fmt.Errorf("%w: THP setting %.60q", ErrMalformed, b)
	}
	return sel[0], nil
}

// Mapping is what ParseSmaps keeps of one /proc/self/smaps entry.
type Mapping struct {
	Start, End  uint64 // [Start, End)
	RssKB       int64
	AnonHugeKB  int64 // AnonHugePages
	HugeAdvised bool  // VmFlags hg (MADV_HUGEPAGE)
	NoHuge      bool  // VmFlags nh (MADV_NOHUGEPAGE)
}

// ParseSmaps reads /proc/PID/smaps and returns its mappings in file order
// (ascending addresses). A header must be "start-end perms ..." in hex with
// start < end; a field line before the first header, a repeated or
// unparsable Rss or AnonHugePages, more than MaxMappings mappings or more
// than MaxSmapsBytes is an error.
func ParseSmaps(r io.Reader) ([]Mapping, error) {
	sc, lim := limitedScanner(r, MaxSmapsBytes)
	var out []Mapping
	for sc.Scan() {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		if !strings.HasSuffix(key, ":") {
			m, err := parseSmapsHeader(key)
			if err != nil {
				return nil, err
			}
			if len(out) >= MaxMappings {
				return nil, fmt.Errorf("%w: smaps has more than %d mappings", ErrTooLarge, MaxMappings)
			}
			out = append(out, m)
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: smaps field %.40q before any mapping", ErrMalformed, line)
		}
		if err := smapsField(&out[len(out)-1], key, rest); err != nil {
			return nil, err
		}
	}
	return out, scanErr(sc, lim, "smaps", MaxSmapsBytes)
}

// parseSmapsHeader parses "start-end" of a mapping's header line.
func parseSmapsHeader(rng string) (Mapping, error) {
	lo, hi, ok := strings.Cut(rng, "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if !ok || err1 != nil || err2 != nil || s >= e {
		return Mapping{}, fmt.Errorf("%w: smaps header %.60q", ErrMalformed, rng)
	}
	return Mapping{Start: s, End: e, RssKB: -1, AnonHugeKB: -1}, nil
}

// smapsField applies one "Key: value" line to m; keys it does not keep are
// skipped.
func smapsField(m *Mapping, key, rest string) error {
	switch key {
	case "VmFlags:":
		f := strings.Fields(rest)
		m.HugeAdvised, m.NoHuge = slices.Contains(f, "hg"), slices.Contains(f, "nh")
		return nil
	case "Rss:":
		return smapsKB(&m.RssKB, key, rest)
	case "AnonHugePages:":
		return smapsKB(&m.AnonHugeKB, key, rest)
	}
	return nil
}

// smapsKB parses "   123 kB" into *dst, which must still be unset (-1).
func smapsKB(dst *int64, key, rest string) error {
	f := strings.Fields(rest)
	if len(f) != 2 || f[1] != "kB" {
		return fmt.Errorf("%w: smaps %s %.40q", ErrMalformed, key, rest)
	}
	v, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || v < 0 || *dst != -1 {
		return fmt.Errorf("%w: smaps %s %.40q (or repeated)", ErrMalformed, key, rest)
	}
	*dst = v
	return nil
}
