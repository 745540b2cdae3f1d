package compare

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// The settings two runs are compared across. A figure measured at GOGC 25
// and one at GOGC 100 differ because of the setting, not only the code, so
// Compare names every setting the sides differ in (Report.Settings) and
// marks the rows measured across one (Row.Differs). Settings come from
// summary.json, when the folder has one: the run's (Go version,
// GOEXPERIMENT, machine) and each compared scenario's, every field of
// results.Scenario it records except those that name it or only watch it
// (settingSkip), so that a field added to Scenario is compared without a
// change here; and from bench.txt's configuration lines (goos, goarch,
// cpu, goversion), which a folder without summary.json still has.

// Side is one results folder as Compare reads it: its bench.txt and, when
// the folder has one, its summary.json (nil: the settings are unknown
// beyond bench.txt's configuration lines). SummaryErr, when set, says why
// a summary.json that exists could not be read; the report names it.
type Side struct {
	Bench      *File
	Summary    *results.Summary
	SummaryErr error
}

// Setting is one setting the two runs differ in: its name as the report
// writes it ("GOGC", "GOMEMLIMIT", "key distribution", "Go version"),
// each side's value as recorded ("-" for none), and the scenarios
// (Key.String) of the compared rows measured across it; Rows is
// nil for a setting of the whole run (toolchain, machine), which every row
// is measured across. A plain value.
type Setting struct {
	Name     string
	Old, New string
	Rows     []string
}

// String is "GOGC: 100 (OLD), 25 (NEW)".
func (s Setting) String() string {
	return fmt.Sprintf("%s: %s (OLD), %s (NEW)", s.Name, s.Old, s.New)
}

// settingSkip are the scenario fields that are not settings: what names
// the scenario (its row's key holds kind, value, set and environment),
// where it wrote, and the parent's watchdog, which stops a run but does
// not shape its figures.
var settingSkip = []string{"name", "group", "repeat", "kind", "value", "env", "dir", "stall_timeout"}

// capacitySkip are the fields a capacity search sets per step: its steps'
// settings, not the search's.
var capacitySkip = []string{"rate", "keys", "preload", "name"}

// settingNames are the report's names of the fields a user sets by a
// flag's name or a runtime variable; other fields keep their JSON name.
var settingNames = map[string]string{
	"gogc": "GOGC", "memlimit": "GOMEMLIMIT", "rss_cap": "container (RSS cap)", "rate": "rate (ops/s)",
	"keydist": "key distribution", "zipf_theta": "zipf theta", "min_run": "least run time",
	"flush_bw": "flush bandwidth", "max_pending_flushes": "max pending flushes", "latency_every": "latency sampled 1 in",
	"read_trace": "read trace",
}

// settingFormat prints a field's JSON value the way the flags take it; ""
// is the field's zero value (JSON omits most).
var settingFormat = map[string]func(string) string{
	"gogc": func(v string) string {
		return zeroAs(v, "off", func(n int64) string { return strconv.FormatInt(n, 10) })
	},
	"memlimit": sizeOr("off"),
	"rss_cap":  sizeOr("none"),
	"memstore": sizeOr("0"),
	"flush_bw": func(v string) string {
		return zeroAs(v, "unlimited", func(n int64) string { return workload.FormatSize(n) + "/s" })
	},
	"keys":              countOr("0"),
	"preload":           countOr("none"),
	"duration":          durationOr("none"),
	"min_run":           durationOr("none"),
	"window":            durationOr("no windows"),
	"warmup":            durationOr("the thresholds'"),
	"thresholds.warmup": durationOr("0s"),
	"rate":              func(v string) string { return or(v, "closed loop") },
	"mix":               func(v string) string { return or(v, "w") },
	"keydist":           func(v string) string { return or(v, "default") },
}

func or(v, zero string) string {
	if v == "" {
		return zero
	}
	return v
}

// zeroAs is zero for "" or a value that is not a positive whole number's
// text, else f of the number.
func zeroAs(v, zero string, f func(int64) string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case v == "":
		return zero
	case err != nil:
		return v
	case n <= 0:
		return zero
	}
	return f(n)
}

func sizeOr(zero string) func(string) string {
	return func(v string) string { return zeroAs(v, zero, workload.FormatSize) }
}

func countOr(zero string) func(string) string {
	return func(v string) string {
		return zeroAs(v, zero, func(n int64) string {
			if n >= results.UnboundedKeys {
				return "unbounded"
			}
			return workload.FormatCount(n)
		})
	}
}

func durationOr(zero string) func(string) string {
	return func(v string) string {
		return zeroAs(v, zero, func(n int64) string { return time.Duration(n).String() })
	}
}

// scenarioSettings flattens s into its settings, by JSON field name
// ("thresholds.warmup" for a nested one), each value as JSON records it
// with the zero values ("", 0, false, null) as "" so that a field one
// version of gcstress omits and another writes as zero read the same.
func scenarioSettings(s results.Scenario) map[string]string {
	b, err := json.Marshal(s)
	if err != nil {
		return nil // a Scenario always marshals; nothing to compare otherwise
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	out := map[string]string{}
	flatten("", m, out)
	skip := settingSkip
	if s.Group == results.SetCapacity {
		skip = append(slices.Clone(skip), capacitySkip...)
	}
	for _, k := range skip {
		delete(out, k)
	}
	return out
}

func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		switch v := v.(type) {
		case map[string]any:
			flatten(prefix+k+".", v, out)
		case json.Number:
			out[prefix+k] = zeroText(v.String())
		case string:
			out[prefix+k] = v
		case bool:
			out[prefix+k] = zeroText(strconv.FormatBool(v))
		case nil:
			out[prefix+k] = ""
		default:
			b, _ := json.Marshal(v)
			out[prefix+k] = zeroText(string(b))
		}
	}
}

// zeroText is "" for a zero value's JSON text.
func zeroText(v string) string {
	switch v {
	case "0", "false", "[]", "{}", "null":
		return ""
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f == 0 {
		return ""
	}
	return v
}

// settingName and settingValue are how the report writes field k and its
// value v.
func settingName(k string) string { return cmp.Or(settingNames[k], k) }

func settingValue(k, v string) string {
	if f, ok := settingFormat[k]; ok {
		return f(v)
	}
	if v == "" {
		return "-"
	}
	return v
}

// runSettings are a side's settings of the whole run, by report name:
// summary.json's, then bench.txt's configuration lines over them (the two
// agree when both are there). A setting neither records is left out:
// unknown, not compared.
func runSettings(s Side) map[string]string {
	out := map[string]string{}
	put := func(name, v string) {
		if v != "" {
			out[name] = v
		}
	}
	if sum := s.Summary; sum != nil {
		put("Go version", sum.GoVersion)
		put("GOEXPERIMENT", cmp.Or(sum.GOEXPERIMENT, "none"))
		put("GOOS", sum.GOOS)
		put("GOARCH", sum.GOARCH)
		put("CPU model", sum.CPUModel)
		if sum.CPUs > 0 {
			put("CPUs", strconv.Itoa(sum.CPUs))
		}
		if sum.GOMAXPROCS > 0 {
			put("GOMAXPROCS", strconv.Itoa(sum.GOMAXPROCS))
		}
		if sum.MemTotal > 0 {
			put("machine memory", workload.FormatSize(int64(sum.MemTotal)))
		}
	}
	if s.Bench != nil {
		for key, name := range map[string]string{"goversion": "Go version", "goos": "GOOS", "goarch": "GOARCH", "cpu": "CPU model"} {
			put(name, s.Bench.Config[key])
		}
	}
	return out
}

// envField is keySettings' field of a build environment's description.
const envField = "build environment"

// keySettings are a side's scenario settings per row key (nil without
// summary.json): each field's distinct values over the key's runs (its
// -count rounds) as scenarioSettings gives them, and for a build
// environment (-build-envs) what the environment was (envField).
func keySettings(s Side) map[Key]map[string][]string {
	if s.Summary == nil {
		return nil
	}
	out := map[Key]map[string][]string{}
	envs := map[string]results.BuildEnv{}
	for _, e := range s.Summary.BuildEnvs {
		envs[e.Name] = e
	}
	add := func(k Key, name, v string) {
		if out[k] == nil {
			out[k] = map[string][]string{}
		}
		if !slices.Contains(out[k][name], v) {
			out[k][name] = append(out[k][name], v)
		}
	}
	for _, r := range s.Summary.Results {
		if r.Scenario.Group == results.SetFrontier {
			continue // no bench.txt line: its points differ in GOGC and GOMEMLIMIT by design
		}
		k := KeyOf(r.Scenario)
		for f, v := range scenarioSettings(r.Scenario) {
			add(k, f, v)
		}
		if e, ok := envs[r.Scenario.BuildEnv]; ok && r.Scenario.BuildEnv != "" {
			add(k, envField, fmt.Sprintf("%s, %s, GOEXPERIMENT %s", e.Label(), cmp.Or(e.GoVersion, "?"), cmp.Or(e.GOEXPERIMENT, "none")))
		}
	}
	return out
}

// settingsDiff is every setting old and new differ in: the whole run's
// first, then each compared row's (keys, the rows both sides have) in the
// rows' order, one Setting per name and pair of values, with the rows
// measured across it.
func settingsDiff(old, new Side, keys []Key) []Setting {
	var out []Setting
	ro, rn := runSettings(old), runSettings(new)
	for _, name := range sortedKeys(ro) {
		if v, ok := rn[name]; ok && v != ro[name] {
			out = append(out, Setting{Name: name, Old: ro[name], New: v})
		}
	}
	ko, kn := keySettings(old), keySettings(new)
	at := map[[3]string]int{}
	for _, k := range keys {
		o, n := ko[k], kn[k]
		if o == nil || n == nil {
			continue // a side without summary.json, or without this scenario's record
		}
		fields := sortedKeys(o)
		for _, f := range sortedKeys(n) {
			if _, ok := o[f]; !ok {
				fields = append(fields, f)
			}
		}
		for _, f := range fields {
			a, b := joinValues(f, o[f]), joinValues(f, n[f])
			if a == b {
				continue
			}
			name := settingName(f)
			id := [3]string{name, a, b}
			i, ok := at[id]
			if !ok {
				i = len(out)
				at[id] = i
				out = append(out, Setting{Name: name, Old: a, New: b, Rows: []string{}})
			}
			if ks := k.String(); !slices.Contains(out[i].Rows, ks) {
				out[i].Rows = append(out[i].Rows, ks)
			}
		}
	}
	return out
}

// joinValues is field f's values over a key's runs as the report writes
// them; a field a side's summary.json omits is its zero value.
func joinValues(f string, vs []string) string {
	if len(vs) == 0 {
		vs = []string{""}
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = settingValue(f, v)
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// ranDiff says what the sides ran that the other did not (kinds, value
// sizes, scenario sets, build environments), one line each: their rows
// are missing on the other side rather than measured across a setting.
func ranDiff(old, new *File) []string {
	var out []string
	for _, d := range []struct {
		what string
		of   func(Key) string
	}{
		{"kinds", func(k Key) string { return k.Kind }},
		{"value sizes", func(k Key) string { return workload.FormatSize(k.Value) }},
		{"scenario sets", func(k Key) string { return k.Set }},
		{"build environments", func(k Key) string { return k.Env }},
	} {
		a, b := ranOf(old, d.of), ranOf(new, d.of)
		if !slices.Equal(a, b) {
			out = append(out, fmt.Sprintf("%s run: %s (OLD), %s (NEW)", d.what, cmp.Or(strings.Join(a, ", "), "-"), cmp.Or(strings.Join(b, ", "), "-")))
		}
	}
	return out
}

// ranOf is the distinct non-empty of(key) of f's rows, in order.
func ranOf(f *File, of func(Key) string) []string {
	var out []string
	for _, s := range f.Series {
		if v := of(s.Key); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// unknownSettings says, per side, why its settings are known only from
// bench.txt's configuration lines.
func unknownSettings(old, new Side) []string {
	var out []string
	for _, s := range []struct {
		name string
		side Side
	}{{"OLD", old}, {"NEW", new}} {
		switch {
		case s.side.SummaryErr != nil:
			out = append(out, fmt.Sprintf("%s's settings are unknown beyond bench.txt's configuration lines: its summary.json could not be read (%v)", s.name, s.side.SummaryErr))
		case s.side.Summary == nil:
			out = append(out, fmt.Sprintf("%s's settings are unknown beyond bench.txt's configuration lines: it has no summary.json", s.name))
		}
	}
	return out
}
