package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/perf/benchmath"

	"github.com/writegc/writegc/benchgate"
)

// Limits of what is recorded, checked before allocating.
const (
	// MaxRecordBytes bounds one benchmark file (benchgate.DefaultMaxBytes).
	MaxRecordBytes = benchgate.DefaultMaxBytes
	// MaxLabelBytes bounds the machine and source labels; the others have
	// smaller limits (see Labels.Validate).
	MaxLabelBytes = 1024
	// MaxSeriesPerRecord bounds the benchmark × unit pairs of one file.
	MaxSeriesPerRecord = 200_000
	// MaxBenchmarkBytes and MaxUnitBytes bound a benchmark's name and unit:
	// with the machine and mode, a series' key stays within what
	// PostgreSQL's unique index holds (about 2.7 KB), so that both backends
	// take the same names.
	MaxBenchmarkBytes = 1024
	MaxUnitBytes      = 128
)

// Per-label limits (bytes).
const (
	maxCommitBytes = 128
	maxShortLabel  = 256
	maxModeBytes   = 32
)

// Mode is how a record was measured. Series of different modes are kept
// apart: a point of a gate run is not comparable with one of a plain run.
// A mode is at most 32 bytes of letters, digits, '-', '_' and '.' (see
// Labels.Validate).
type Mode string

// Modes.
const (
	// ModeBench: a plain `go test -bench` run (the default).
	ModeBench Mode = "bench"
	// ModeGate: one side of an interleaved `benchgate run`.
	ModeGate Mode = "gate"
)

// Config keys a benchmark file may label itself with.
const (
	ConfigCommit     = "commit"
	ConfigCommitTime = "commit-time"
)

// Labels describe a record, resolved: each is stored as given (a commit
// is not looked up; see the package doc). The zero value of a field means
// unknown. A plain value, bounded by Validate.
type Labels struct {
	Commit     string
	CommitTime time.Time
	Branch     string
	// Machine is the machine fingerprint (see Fingerprint).
	Machine string
	Mode    Mode
	RunID   string
	Source  string
}

// Validate checks the labels' lengths and content: Commit at most 128
// bytes, Mode at most 32 (letters, digits, '-', '_', '.'), Branch and RunID
// at most 256, Machine and Source at most MaxLabelBytes; each must be valid
// UTF-8 without a newline or NUL. Errors wrap ErrBadLabel.
func (l Labels) Validate() error {
	for _, f := range []struct {
		name, v string
		max     int
	}{
		{"commit", l.Commit, maxCommitBytes}, {"branch", l.Branch, maxShortLabel}, {"run id", l.RunID, maxShortLabel},
		{"mode", string(l.Mode), maxModeBytes}, {"machine", l.Machine, MaxLabelBytes}, {"source", l.Source, MaxLabelBytes},
	} {
		if len(f.v) > f.max {
			return fmt.Errorf("%w: %s is %d bytes, more than the limit of %d", ErrBadLabel, f.name, len(f.v), f.max)
		}
		if strings.ContainsAny(f.v, "\n\r\x00") || !utf8.ValidString(f.v) {
			return fmt.Errorf("%w: %s %q holds a newline or NUL, or is not valid UTF-8", ErrBadLabel, f.name, f.v)
		}
	}
	for _, r := range l.Mode {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r)) {
			return fmt.Errorf("%w: mode %q: want letters, digits, '-', '_' or '.'", ErrBadLabel, l.Mode)
		}
	}
	return nil
}

// checkName refuses a benchmark name or unit that a backend would not
// store (see ErrBadName); source names the file.
func checkName(source, bench, unit string) error {
	for _, f := range []struct {
		what, v string
		max     int
	}{{"name", bench, MaxBenchmarkBytes}, {"unit", unit, MaxUnitBytes}} {
		why := ""
		switch {
		case len(f.v) > f.max:
			why = fmt.Sprintf("%s is %d bytes, more than the limit of %d", f.what, len(f.v), f.max)
		case strings.IndexByte(f.v, 0) >= 0:
			why = f.what + " holds NUL"
		case !utf8.ValidString(f.v):
			why = f.what + " is not valid UTF-8"
		default:
			continue
		}
		const shown = 80 // bytes of a long name in the message
		name := bench
		if len(name) > shown {
			name = name[:shown] + "..."
		}
		return fmt.Errorf("%w: %s: benchmark %s (unit %s): %s", ErrBadName, Printable(source), quoteName(name), quoteName(unit[:min(len(unit), shown)]), why)
	}
	return nil
}

// validate checks what a DB writes: the labels and every sample's name.
func (r *Recording) validate() error {
	if err := r.Labels.Validate(); err != nil {
		return err
	}
	for _, sm := range r.Samples {
		if err := checkName(r.Labels.Source, sm.Benchmark, sm.Unit); err != nil {
			return err
		}
	}
	return nil
}

// Sample is one series' share of a record: every value of one benchmark and
// unit in the file, with their median and its 95% interval (see summarize),
// and for the head of RecordPair the head/base ratio. A plain value, part
// of its Recording.
type Sample struct {
	Benchmark, Unit string
	Direction       benchgate.Direction
	Summary
}

// Recording is a benchmark file prepared for Record: its content, resolved
// labels and samples. It is built by Prepare; its Labels may be adjusted
// (and are validated again) until it is given to a DB, and it is
// read-only from then on, safe to share between goroutines. Its size is
// bounded by MaxRecordBytes and MaxSeriesPerRecord.
type Recording struct {
	Labels  Labels
	Content []byte
	// Hash is the hex SHA-256 of Content: the record's identity.
	Hash    string
	Samples []Sample
}

// PrepareOptions configure Prepare. The zero value is strict, with the
// package's limits. A plain value.
type PrepareOptions struct {
	// Lenient records a file with malformed lines (they are left out);
	// otherwise such a file is an error wrapping benchgate.ErrMalformed.
	Lenient bool
	// MaxSeries lowers MaxSeriesPerRecord (0, or more than it:
	// MaxSeriesPerRecord).
	MaxSeries int
}

// Prepare parses content (a benchmark file; name labels messages) and
// resolves its labels: a non-zero field of override wins, else the file's
// `commit:` and `commit-time:` (RFC 3339) configuration lines, else
// unknown. The machine is the file's Fingerprint unless override names one;
// the mode defaults to ModeBench and the source to name. Errors wrap
// benchgate.ErrTooLarge, ErrNoBenchmarks, ErrMalformed,
// ErrBadLabel, ErrBadName or ErrMixedMachines.
func Prepare(content []byte, name string, override Labels, o PrepareOptions) (*Recording, error) {
	if len(content) > MaxRecordBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d: %w", name, len(content), MaxRecordBytes, benchgate.ErrTooLarge)
	}
	set, err := benchgate.Parse(bytes.NewReader(content), name)
	var mal *benchgate.MalformedError
	if err != nil && !(o.Lenient && errors.As(err, &mal) && !errors.Is(err, benchgate.ErrNoBenchmarks)) {
		return nil, err
	}
	if maxSeries := limit(o.MaxSeries, MaxSeriesPerRecord); len(set.Keys) > maxSeries {
		return nil, fmt.Errorf("%s: %d benchmark/unit pairs, more than the limit of %d: %w", name, len(set.Keys), maxSeries, benchgate.ErrTooLarge)
	}
	l, err := resolveLabels(set, name, override)
	if err != nil {
		return nil, err
	}
	for _, k := range set.Keys {
		if err := checkName(name, k.Name, k.Unit); err != nil {
			return nil, err
		}
	}
	sum := sha256.Sum256(content)
	rec := &Recording{Labels: l, Content: content, Hash: hex.EncodeToString(sum[:])}
	for _, k := range set.Keys {
		rec.Samples = append(rec.Samples, newSample(k, set.Samples[k], benchgate.DirectionOf(k.Unit, set.Units)))
	}
	return rec, nil
}

func resolveLabels(set *benchgate.Set, name string, l Labels) (Labels, error) {
	if l.Commit == "" {
		if cs := set.Configs[ConfigCommit]; len(cs) > 1 {
			return l, fmt.Errorf("%w: %s states %d commits (%s); give the commit", ErrBadLabel, name, len(cs), strings.Join(cs, ", "))
		}
		l.Commit = strings.TrimSpace(set.Config[ConfigCommit])
	}
	if l.CommitTime.IsZero() {
		if v := strings.TrimSpace(set.Config[ConfigCommitTime]); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return l, fmt.Errorf("%w: %s: commit-time %q: want RFC 3339 (2006-01-02T15:04:05Z07:00)", ErrBadLabel, name, v)
			}
			l.CommitTime = t
		}
	}
	if l.Machine == "" {
		fp, err := Fingerprint(set)
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		l.Machine = fp
	} else {
		env, err := envPart(set)
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		if env != "" && !strings.HasSuffix(l.Machine, "; "+env) && l.Machine != env {
			l.Machine += "; " + env
		}
	}
	if l.Mode == "" {
		l.Mode = ModeBench
	}
	if l.Source == "" {
		l.Source = strings.ToValidUTF8(name, "\uFFFD")
	}
	return l, l.Validate()
}

// UnknownMachine is the fingerprint of a file that states no machine key.
const UnknownMachine = "unknown"

// Fingerprint returns the machine fingerprint of a parsed file: its strict
// machine keys (benchgate.StrictMachineKeys: goos, goarch, goamd64,
// goversion, cpu, gomaxprocs) as "key=value" joined by "; ", then the
// environment of its `env:` line (benchgate.ConfigEnv, written by
// benchgate run for a side given -base-env or -head-env) as
// "env=K=V ...", or UnknownMachine when it states none of these. The
// fingerprint is the machine part of a series' key, so results of
// different environments (Green Tea and the classic collector, two Go
// toolchains) are different series, and a file without an env: line keeps
// the fingerprint it always had. A file whose strict keys or env: line hold
// several values (two machines concatenated) is ErrMixedMachines.
func Fingerprint(set *benchgate.Set) (string, error) {
	fp := set.Fingerprint()
	var parts []string
	for _, k := range benchgate.StrictMachineKeys {
		vs := fp[k]
		switch {
		case len(vs) > 1:
			return "", fmt.Errorf("%w: %s has %d values (%s)", ErrMixedMachines, k, len(vs), strings.Join(vs, ", "))
		case len(vs) == 1:
			parts = append(parts, k+"="+vs[0])
		}
	}
	env, err := envPart(set)
	if err != nil {
		return "", err
	}
	if env != "" {
		parts = append(parts, env)
	}
	if len(parts) == 0 {
		return UnknownMachine, nil
	}
	return strings.Join(parts, "; "), nil
}

// envPart is the fingerprint's part for the file's env: line,
// "env=K=V ...", or "" when it has none.
func envPart(set *benchgate.Set) (string, error) {
	var vs []string
	for _, v := range set.Configs[benchgate.ConfigEnv] {
		if v = strings.Join(strings.Fields(v), " "); v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	switch len(vs) {
	case 0:
		return "", nil
	case 1:
		return benchgate.ConfigEnv + "=" + vs[0], nil
	}
	return "", fmt.Errorf("%w: %s has %d values (%s)", ErrMixedMachines, benchgate.ConfigEnv, len(vs), strings.Join(vs, ", "))
}

func newSample(k benchgate.Key, values []float64, d benchgate.Direction) Sample {
	s := Sample{Benchmark: k.Name, Unit: k.Unit, Direction: d, Summary: Summary{Values: slices.Clone(values)}}
	s.Median, s.Lo, s.Hi, s.HasInterval = summarize(values)
	return s
}

// summarize returns the median of values and its 95% confidence interval;
// when a sample is too small for 95% (fewer than 6 values) the interval is
// the sample's range, whose confidence is 1-2^(1-n) (94% for 5 values).
func summarize(values []float64) (median, lo, hi float64, ok bool) {
	sorted := slices.Clone(values)
	sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(sorted, &benchmath.DefaultThresholds), 0.95)
	switch {
	case len(sorted) < 2:
		return sum.Center, 0, 0, false
	case finite(sum.Lo) && finite(sum.Hi):
		return sum.Center, sum.Lo, sum.Hi, true
	}
	return sum.Center, slices.Min(sorted), slices.Max(sorted), true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// pairRatios sets the head/base ratio and the MDE of every head sample that
// base has.
func pairRatios(base, head *Recording) {
	byKey := map[[2]string]*Sample{}
	for i := range base.Samples {
		s := &base.Samples[i]
		byKey[[2]string{s.Benchmark, s.Unit}] = s
	}
	for i := range head.Samples {
		h := &head.Samples[i]
		b, ok := byKey[[2]string{h.Benchmark, h.Unit}]
		if !ok || b.Median <= 0 {
			continue
		}
		h.Ratio, h.RatioLo, h.RatioHi, h.HasRatio = h.Median/b.Median, h.Median/b.Median, h.Median/b.Median, true
		if h.HasInterval && b.HasInterval && b.Lo > 0 {
			h.RatioLo, h.RatioHi = h.Lo/b.Hi, h.Hi/b.Lo
		}
		// An MDE no change reaches at these rounds (+Inf) is stored as none.
		if m := benchgate.MDE(b.Values, h.Values, benchgate.DefaultAlpha, benchgate.DefaultPower); finite(m) && m >= 0 {
			h.MDE, h.HasMDE = m, true
		}
	}
}
