package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadResults rebuilds scenario Results from a samples.jsonl stream (one
// or many scenarios, in order) and classifies them with th. The parent's
// exit line (SampleExit) gives how a child ended and why the parent
// stopped it. A scenario with no end line is a child that died, unless its
// stream is of protocol version 2 or later (Sample.Proto on its start
// line) and has no exit line either: its parent stopped recording, so
// gcstress itself was killed while it ran, and it is Interrupted. A start
// line of a name already started begins another Result (the runs of -count,
// a capacity step run again). It lets
// a recorded stream be re-read and re-classified (the classifier's golden
// tests use it). Lines that are not JSON are skipped.
func ReadResults(r io.Reader, th Thresholds) ([]Result, error) {
	var out []Result
	// idx is the index in out of each name's latest run; proto, exited
	// and started are by index in out.
	idx := map[string]int{}
	proto, exited, started := map[int]int{}, map[int]bool{}, map[int]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxRecord+1)
	for sc.Scan() {
		var s Sample
		if json.Unmarshal(sc.Bytes(), &s) != nil {
			continue
		}
		start := s.Type == SampleStart && s.Spec != nil
		i, ok := idx[s.Scenario]
		// A start line of a name already started is another run of it (a
		// repeat of -count, a capacity step run again): a Result of its own.
		if !ok || (start && started[i]) {
			i = len(out)
			idx[s.Scenario] = i
			out = append(out, Result{Scenario: Scenario{Name: s.Scenario}})
		}
		res := &out[i]
		remeasure(&s)
		switch {
		case start:
			res.Scenario = *s.Spec
			proto[i], started[i] = s.Proto, true
		case s.Type == SampleExit && s.Exit != nil:
			res.Exit, res.Stopped = *s.Exit, s.Reason
			exited[i] = true
		}
		res.Add(s)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("gcstress: read samples: %w", err)
	}
	for i := range out {
		res := &out[i]
		switch {
		case exited[i]:
		case res.End == nil && proto[i] >= StreamProto:
			res.Exit, res.Stopped = Exit{Interrupted: true, Message: "parent killed: gcstress stopped recording before the scenario ended"}, StopInterrupted
		case res.End == nil:
			res.Exit = Exit{Died: true, Message: "no end record"}
		default:
			if e, ok := ExitOfEnd(res.End); ok {
				res.Exit = e
			}
		}
		res.Verdict = ClassifyScenario(res.Scenario, res.Windows, res.Exit, th)
	}
	return out, nil
}

// remeasure recomputes a window or end line's MB/s from its byte counts:
// streams recorded before MB/s meant 10^6 B/s (it was MiB/s) replay in the
// current unit, and a replay never depends on the unit of the recording.
func remeasure(s *Sample) {
	switch s.Type {
	case SampleWindow:
		s.MBps = MBps(s.WinBytes, s.Dur)
	case SampleEnd:
		s.MBps = MBps(s.Bytes, s.T)
	}
}

// Keys renamed to snake_case, by their former CamelCase names: summary.json
// files and samples.jsonl start lines (spec.thresholds) written before the
// rename still decode.
var (
	exitRenamed       = map[string]string{"Died": "died", "RSSCap": "rss_cap", "Message": "message"}
	thresholdsRenamed = map[string]string{"HealthyGC": "healthy_gc", "HealthyAssist": "healthy_assist",
		"DegradedGC": "degraded_gc", "DegradedAssist": "degraded_assist", "FailLive": "fail_live",
		"FailThroughput": "fail_throughput", "FailWindows": "fail_windows", "Warmup": "warmup", "Share": "share"}
)

// UnmarshalJSON decodes an Exit under its current or its former key names.
func (e *Exit) UnmarshalJSON(b []byte) error {
	type plain Exit
	return unmarshalRenamed(b, (*plain)(e), exitRenamed)
}

// UnmarshalJSON decodes Thresholds under their current or former key names.
func (t *Thresholds) UnmarshalJSON(b []byte) error {
	type plain Thresholds
	return unmarshalRenamed(b, (*plain)(t), thresholdsRenamed)
}

// unmarshalRenamed decodes the JSON object b into v after renaming each
// key of renamed to its current name; a current key wins over a former
// one. v must not have an UnmarshalJSON method (it would recurse).
func unmarshalRenamed(b []byte, v any, renamed map[string]string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil { // null
		return nil
	}
	for old, cur := range renamed {
		raw, ok := m[old]
		if !ok {
			continue
		}
		delete(m, old)
		if _, dup := m[cur]; !dup {
			m[cur] = raw
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// ReadSummary reads dir/summary.json; a missing one gives a Summary with the
// default thresholds.
func ReadSummary(dir string) (*Summary, error) {
	sum := &Summary{Thresholds: DefaultThresholds(), SpanNote: SpanNote, Out: dir}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum.Rules = sum.Thresholds.String()
		return sum, nil
	case err != nil:
		return nil, fmt.Errorf("gcstress: %w", err)
	}
	if err := json.Unmarshal(b, sum); err != nil {
		return nil, fmt.Errorf("gcstress: %s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if sum.Rules == "" {
		sum.Rules = sum.Thresholds.String()
	}
	return sum, nil
}

// MergeResults gives each scenario replayed from samples.jsonl what only
// summary.json holds of it (the parent's view: exit, stop, accounts,
// machine load), reclassifying it when the exit differs. Runs are matched
// by name and repeat, in order: the k-th run of a name and repeat replayed
// takes from the k-th recorded one (a capacity step run again has the
// same name and repeat).
func MergeResults(replayed, recorded []Result, th Thresholds) []Result {
	type runKey struct {
		name   string
		repeat int
		nth    int
	}
	keyOf := func(seen map[runKey]int, s Scenario) runKey {
		k := runKey{name: s.Name, repeat: s.Repeat}
		n := seen[k]
		seen[k] = n + 1
		k.nth = n
		return k
	}
	byRun, seen := map[runKey]Result{}, map[runKey]int{}
	for _, r := range recorded {
		byRun[keyOf(seen, r.Scenario)] = r
	}
	seen = map[runKey]int{}
	for i := range replayed {
		r := &replayed[i]
		old, ok := byRun[keyOf(seen, r.Scenario)]
		if !ok {
			continue
		}
		r.Account, r.Headline, r.Machine, r.Flight = old.Account, old.Headline, old.Machine, old.Flight
		r.Stopped, r.Stderr, r.Wall = old.Stopped, old.Stderr, old.Wall
		r.Foreign, r.StreamErr = old.Foreign, old.StreamErr
		if old.Exit != r.Exit {
			r.Exit = old.Exit
			r.Verdict = ClassifyScenario(r.Scenario, r.Windows, r.Exit, th)
		}
	}
	return replayed
}
