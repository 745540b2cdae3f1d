package benchgate

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Calibration defaults.
const (
	// DefaultK multiplies a benchmark's A/A spread into its threshold. The
	// spread is a 95th percentile estimated from a few dozen A/A chunks,
	// which is essentially their second-largest value and uncertain by a
	// factor of about 1.5 either way; the chunks all come from one session,
	// so they also miss drift between sessions. Twice the spread covers
	// both, so a calibrated threshold is rarely crossed by noise alone,
	// while the U test (p < Alpha) still has to agree before a row regresses.
	DefaultK = 2.0
	// MinChunks is the fewest A/A chunks Calibrate accepts: below it the
	// 95th percentile is just the largest value seen.
	MinChunks = 10
	// ThresholdsVersion is the first line of a thresholds file.
	ThresholdsVersion = "benchgate-thresholds: v1"
)

// Threshold is one calibrated row: the relative threshold the gate applies
// to a benchmark and unit, and the A/A spread it came from.
type Threshold struct {
	Key
	Threshold float64 // max(default, K × Spread), at most MaxThreshold
	Spread    float64 // 95th percentile of the A/A |relative median difference|
	// MDE is the minimum detectable effect (see MDE) of a gate run of
	// Rounds rounds a side with the scatter of all the A/A rounds, at the
	// calibration's Alpha and Power; RoundsNeeded the rounds a side that
	// bring it under Threshold (RoundsFor; 0 when more than MaxCount).
	// Calibrate fills both in; the thresholds file does not hold them
	// (ReadThresholds leaves them NaN and 0).
	MDE          float64
	RoundsNeeded int
}

// Thresholds is a calibrated thresholds file: per benchmark and unit, the
// threshold to use instead of Options.Threshold. It is built by Calibrate or
// ReadThresholds and is read-only afterwards (safe to share between
// goroutines). Its size is bounded by the Parser limits of the file.
type Thresholds struct {
	// File is where it was read from ("" when built by Calibrate); the report
	// names it as each calibrated row's source.
	File string
	// Commit, Date, K, Default, Rounds (per chunk) and Chunks describe the
	// calibration; Machine is the fingerprint (see Set.Fingerprint) of the
	// machine it ran on, one value per key.
	Commit, Date   string
	K, Default     float64
	Rounds, Chunks int
	Machine        map[string]string
	Rows           []Threshold
	byKey          map[Key]int
}

// Get returns the calibrated threshold of k.
func (t *Thresholds) Get(k Key) (float64, bool) {
	if t == nil || t.byKey == nil {
		return 0, false
	}
	i, ok := t.byKey[k]
	if !ok {
		return 0, false
	}
	return t.Rows[i].Threshold, true
}

func (t *Thresholds) index() {
	t.byKey = make(map[Key]int, len(t.Rows))
	for i, r := range t.Rows {
		t.byKey[r.Key] = i
	}
}

// fingerprint returns Machine in the form CheckMachines takes.
func (t *Thresholds) fingerprint() map[string][]string {
	fp := map[string][]string{}
	for k, v := range t.Machine {
		fp[k] = []string{v}
	}
	return fp
}

// CalibrateConfig configures Calibrate.
type CalibrateConfig struct {
	// Rounds is the number of rounds per chunk: the count the gate itself
	// runs with (required, > 0).
	Rounds int
	// K multiplies the spread; 0 means DefaultK.
	K float64
	// Default is the smallest threshold written (the gate's default); 0
	// means DefaultThreshold.
	Default float64
	// Date is written into the header (the caller's clock: Calibrate reads
	// none).
	Date string
	// Alpha and Power are the gate's, for each row's MDE; 0 means
	// DefaultAlpha and DefaultPower.
	Alpha, Power float64
}

// Calibrate derives per-benchmark thresholds from an A/A run: base and head
// measured from the same commit, round by round (Run with Base == Head). The
// samples of each side, in round order, are cut into chunks of cfg.Rounds;
// each chunk is one simulated gate run, whose relative median difference
// |median(head) − median(base)| / median(base) is pure noise. A row's spread
// is the 95th percentile (nearest rank) of that difference over the chunks,
// and its threshold max(Default, K × spread), capped at MaxThreshold.
//
// Only rows the gate judges by a relative threshold are written: units with a
// known direction that are not exact (constant exact units regress on any
// change) and that have no `gate=` metadata of their own. Errors:
// errBadOption for fields out of range, ErrUnderpowered when fewer than
// MinChunks chunks fit, errNoCommon when nothing qualifies.
func Calibrate(base, head *Set, cfg CalibrateConfig) (*Thresholds, error) {
	if cfg.K == 0 {
		cfg.K = DefaultK
	}
	if cfg.Default == 0 {
		cfg.Default = DefaultThreshold
	}
	cfg.Alpha, cfg.Power = cmp.Or(cfg.Alpha, DefaultAlpha), cmp.Or(cfg.Power, DefaultPower)
	if cfg.Rounds <= 0 || !(cfg.K > 0 && cfg.K <= 100) || !(cfg.Default > 0 && cfg.Default <= MaxThreshold) ||
		!(cfg.Alpha > 0 && cfg.Alpha < 1) || !(cfg.Power > 0 && cfg.Power < 1) {
		return nil, fmt.Errorf("%w: CalibrateConfig{Rounds: %d, K: %g, Default: %g, Alpha: %g, Power: %g}: want Rounds > 0, K in (0, 100], Default in (0, %g], Alpha and Power in (0, 1)",
			errBadOption, cfg.Rounds, cfg.K, cfg.Default, cfg.Alpha, cfg.Power, MaxThreshold)
	}
	if err := errors.Join(checkSamples("base", base), checkSamples("head", head)); err != nil {
		return nil, err
	}
	units, err := mergeUnits(base.Units, head.Units)
	if err != nil {
		return nil, err
	}
	t := &Thresholds{Commit: head.Config["commit"], Date: cfg.Date, K: cfg.K, Default: cfg.Default,
		Rounds: cfg.Rounds, Machine: map[string]string{}}
	for k, v := range head.Fingerprint() {
		t.Machine[k] = strings.Join(v, ", ")
	}
	for _, k := range base.Keys {
		b, h := base.Samples[k], head.Samples[k]
		if len(h) == 0 || DirectionOf(k.Unit, units) == DirUnknown || units.Get(k.Unit, "gate") != nil {
			continue
		}
		if _, c1 := mode(b); IsExact(k.Unit, units) && c1 {
			if _, c2 := mode(h); c2 {
				continue
			}
		}
		chunks := min(len(b), len(h)) / cfg.Rounds
		if chunks < MinChunks {
			return nil, fmt.Errorf("%w: %s %s: %d+%d rounds make %d chunks of %d, want at least %d",
				ErrUnderpowered, k.Name, k.Unit, len(b), len(h), chunks, cfg.Rounds, MinChunks)
		}
		ds := make([]float64, chunks)
		for i := range ds {
			lo, hi := i*cfg.Rounds, (i+1)*cfg.Rounds
			ds[i] = math.Abs(delta(median(b[lo:hi]), median(h[lo:hi])))
		}
		if t.Chunks == 0 || chunks < t.Chunks {
			t.Chunks = chunks
		}
		spread := percentile95(ds)
		th := math.Min(MaxThreshold, math.Max(cfg.Default, cfg.K*spread))
		t.Rows = append(t.Rows, calibratedRow(k, b, h, th, spread, cfg))
	}
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("%w: no timed row with a known direction to calibrate", errNoCommon)
	}
	t.index()
	return t, nil
}

// calibratedRow is a row of Calibrate with its MDE at cfg.Rounds rounds a
// side, from the scatter of all of b and h.
func calibratedRow(k Key, b, h []float64, th, spread float64, cfg CalibrateConfig) Threshold {
	m := math.Abs(median(b))
	sb, sh := sigmaOf(b), sigmaOf(h)
	row := Threshold{Key: k, Threshold: th, Spread: spread,
		MDE: relativeTo(DetectableShift(sb, sh, cfg.Rounds, cfg.Rounds, cfg.Alpha, cfg.Power), m)}
	if m > 0 {
		row.RoundsNeeded = RoundsFor(sb/m, sh/m, th, cfg.Alpha, cfg.Power)
	}
	return row
}

// percentile95 is the nearest-rank 95th percentile of xs (len > 0); an
// infinite value (a zero base median) counts as MaxThreshold.
func percentile95(xs []float64) float64 {
	s := slices.Clone(xs)
	for i, v := range s {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			s[i] = MaxThreshold
		}
	}
	slices.Sort(s)
	i := int(math.Ceil(0.95*float64(len(s)))) - 1
	return s[max(i, 0)]
}

// Write writes t in the thresholds file format: ThresholdsVersion, then
// "key: value" header lines (commit, date, k, default, rounds, chunks, the
// machine keys), then one `BENCHMARK UNIT THRESHOLD SPREAD` line per row,
// percentages with a % sign.
func (t *Thresholds) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n# Per-benchmark gate thresholds from A/A calibration (benchgate calibrate).\n", ThresholdsVersion)
	fmt.Fprintf(&b, "# threshold = max(default, k x spread); spread = 95th percentile over the chunks of\n")
	fmt.Fprintf(&b, "# |relative median difference| between base and head of the same commit.\n")
	fmt.Fprintf(&b, "commit: %s\ndate: %s\nk: %g\ndefault: %s\nrounds: %d\nchunks: %d\n",
		t.Commit, t.Date, t.K, formatPct(t.Default), t.Rounds, t.Chunks)
	for _, k := range append(slices.Clone(StrictMachineKeys), NotedMachineKeys...) {
		if v, ok := t.Machine[k]; ok {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteString("\n# benchmark unit threshold spread\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%s %s %s %s\n", r.Name, r.Unit, formatPct(round4(r.Threshold)), formatPct(round4(r.Spread)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// ReadThresholds reads a thresholds file (see Write) within the default
// Parser limits. Every problem is reported with file:line, wrapping
// errThresholdsFile. Only a regular file is read (see ErrNotRegular).
func ReadThresholds(path string) (*Thresholds, error) {
	f, err := openInput(path, DefaultMaxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseThresholds(f, path)
}

// ParseThresholds reads a thresholds file from r; fileName labels messages
// and becomes Thresholds.File.
func ParseThresholds(r io.Reader, fileName string) (*Thresholds, error) {
	p, _ := Parser{}.withDefaults()
	data, err := p.read(r, fileName)
	if err != nil {
		return nil, err
	}
	t := &Thresholds{File: fileName, Machine: map[string]string{}}
	var problems []string
	bad := func(n int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", fileName, n, fmt.Sprintf(format, args...)))
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, DefaultMaxLineBytes+1)
	seenVersion := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case !seenVersion:
			if line != ThresholdsVersion {
				bad(n, "first line %q, want %q", line, ThresholdsVersion)
				return nil, fmt.Errorf("%w:\n\t%s", errThresholdsFile, strings.Join(problems, "\n\t"))
			}
			seenVersion = true
		case strings.HasPrefix(line, "Benchmark"):
			if msg := t.parseRow(line); msg != "" {
				bad(n, "%s", msg)
			}
		default:
			key, val, ok := strings.Cut(line, ":")
			if !ok {
				bad(n, "%q: want `key: value` or `BENCHMARK UNIT THRESHOLD SPREAD`", line)
				continue
			}
			if msg := t.setHeader(strings.TrimSpace(key), strings.TrimSpace(val)); msg != "" {
				bad(n, "%s", msg)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", fileName, err)
	}
	if !seenVersion {
		problems = append(problems, fmt.Sprintf("%s: empty, want a first line %q", fileName, ThresholdsVersion))
	} else if len(t.Rows) == 0 {
		problems = append(problems, fmt.Sprintf("%s: no threshold rows", fileName))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w:\n\t%s", errThresholdsFile, strings.Join(problems, "\n\t"))
	}
	t.index()
	return t, nil
}

func (t *Thresholds) parseRow(line string) string {
	f := strings.Fields(line)
	if len(f) != 4 {
		return fmt.Sprintf("%q: want `BENCHMARK UNIT THRESHOLD SPREAD`", line)
	}
	th, err1 := parsePct(f[2])
	sp, err2 := parsePct(f[3])
	switch {
	case err1 != nil || !(th > 0 && th <= MaxThreshold):
		return fmt.Sprintf("threshold %q: want a percentage in (0%%, %g%%]", f[2], MaxThreshold*100)
	case err2 != nil || !(sp >= 0) || math.IsInf(sp, 0):
		return fmt.Sprintf("spread %q: want a non-negative percentage", f[3])
	}
	k := Key{f[0], f[1]}
	if slices.ContainsFunc(t.Rows, func(r Threshold) bool { return r.Key == k }) {
		return fmt.Sprintf("%s %s listed twice", k.Name, k.Unit)
	}
	t.Rows = append(t.Rows, Threshold{Key: k, Threshold: th, Spread: sp, MDE: math.NaN()})
	return ""
}

func (t *Thresholds) setHeader(key, val string) string {
	var err error
	switch key {
	case "commit":
		t.Commit = val
	case "date":
		t.Date = val
	case "k":
		t.K, err = strconv.ParseFloat(val, 64)
	case "default":
		t.Default, err = parsePct(val)
	case "rounds":
		t.Rounds, err = strconv.Atoi(val)
	case "chunks":
		t.Chunks, err = strconv.Atoi(val)
	default:
		if slices.Contains(StrictMachineKeys, key) || slices.Contains(NotedMachineKeys, key) {
			t.Machine[key] = val
		}
	}
	if err != nil {
		return fmt.Sprintf("%s: %q is not a number", key, val)
	}
	return ""
}

// parsePct reads "12.5%" (a percentage) or "0.125" (a fraction) as a fraction.
func parsePct(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, err
	}
	if strings.HasSuffix(s, "%") {
		v /= 100
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("NaN")
	}
	return v, nil
}
