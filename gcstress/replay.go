package gcstress

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// ReadResults rebuilds scenario Results from a samples.jsonl stream (one
// or many scenarios, in order) and classifies them with th: a scenario
// without an end line is taken as a child that died. It lets a recorded
// stream be re-read and re-classified (the classifier's golden tests use
// it). Lines that are not JSON are skipped.
func ReadResults(r io.Reader, th Thresholds) ([]Result, error) {
	var out []Result
	idx := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var s Sample
		if json.Unmarshal(sc.Bytes(), &s) != nil {
			continue
		}
		i, ok := idx[s.Scenario]
		if !ok {
			i = len(out)
			idx[s.Scenario] = i
			out = append(out, Result{Scenario: Scenario{Name: s.Scenario}})
		}
		res := &out[i]
		remeasure(&s)
		switch s.Type {
		case "start":
			if s.Spec != nil {
				res.Scenario = *s.Spec
			}
		case "window":
			res.Windows = append(res.Windows, s)
			res.Last = s
		case "end":
			e := s
			res.End, res.Last = &e, s
		case "flight":
			res.Flight = s.Flight
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("gcstress: read samples: %w", err)
	}
	for i := range out {
		res := &out[i]
		switch {
		case res.End == nil:
			res.Exit = Exit{Died: true, Message: "no end record"}
		case res.End.Reason == "rss-cap":
			res.Exit = Exit{RSSCap: true}
		case res.End.Reason == "error":
			res.Exit = Exit{Died: true, Message: "error: " + res.End.Err}
		}
		res.Verdict = Classify(res.Windows, res.Exit, th)
	}
	return out, nil
}

// remeasure recomputes a window or end line's MB/s from its byte counts:
// streams recorded before MB/s meant 10^6 B/s (it was MiB/s) replay in the
// current unit, and a replay never depends on the unit of the recording.
func remeasure(s *Sample) {
	switch s.Type {
	case SampleWindow:
		s.MBps = mbps(s.WinBytes, s.Dur)
	case SampleEnd:
		s.MBps = mbps(s.Bytes, s.T)
	}
}
