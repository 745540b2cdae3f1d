package results

import (
	"fmt"
	"time"
)

// Summary is a whole run: what ran, on what, and each scenario's Result.
// It is written as summary.json and feeds every report. A plain value.
type Summary struct {
	Command      string     `json:"command"`
	Started      time.Time  `json:"started"`
	Finished     time.Time  `json:"finished"`
	GoVersion    string     `json:"go_version"`
	GOEXPERIMENT string     `json:"goexperiment"`
	Commit       string     `json:"commit,omitempty"`
	GOOS         string     `json:"goos"`
	GOARCH       string     `json:"goarch"`
	CPUs         int        `json:"cpus"`
	GOMAXPROCS   int        `json:"gomaxprocs"`
	LoadStart    [3]float64 `json:"load_start"` // 1-, 5- and 15-minute load averages when the run started
	LoadEnd      [3]float64 `json:"load_end"`   // and when it finished
	CPUModel     string     `json:"cpu_model,omitempty"`
	MemTotal     uint64     `json:"mem_total,omitempty"`
	Thresholds   Thresholds `json:"thresholds"`
	Rules        string     `json:"rules"`
	SpanNote     string     `json:"span_note"`
	Interrupted  bool       `json:"interrupted,omitempty"`
	Out          string     `json:"out"`
	Results      []Result   `json:"results"`
	// Capacity is the capacity search's outcome, one entry per kind x
	// value size (SetCapacity); its steps are also in Results.
	Capacity []Capacity `json:"capacity,omitempty"`
	// Warnings are what a reader of the reports must see that no table
	// shows: the samples.jsonl lines a rebuild skipped (SkipWarning). The
	// reports list them under "Notes".
	Warnings []string `json:"warnings,omitempty"`
	// BuildEnvs are the build environments the run compared (-build-envs),
	// in the order each scenario ran under them; nil without -build-envs.
	BuildEnvs []BuildEnv `json:"build_envs,omitempty"`
	// The frontier (SetFrontier; frontier.go): every grid point, the
	// recommendation per kind with its confirmation, the check of the GC
	// guide's model, and the frontier's settings. Its runs are also in
	// Results.
	Frontier       []FrontierPoint  `json:"frontier,omitempty"`
	Recommendation []Recommendation `json:"recommendation,omitempty"`
	FrontierModel  []FrontierModel  `json:"frontier_model,omitempty"`
	FrontierRun    *FrontierRun     `json:"frontier_run,omitempty"`
}

// Result is what a scenario produced. It is a plain value.
type Result struct {
	Scenario Scenario `json:"scenario"`
	Windows  []Sample `json:"-"` // window lines, in order (in samples.jsonl)
	End      *Sample  `json:"end,omitempty"`
	// Last is the last window or end line seen: the progress of a child
	// that died.
	Last    Sample     `json:"last"`
	Flight  string     `json:"flight,omitempty"` // flight-recorder dump, if written
	Exit    Exit       `json:"exit"`
	Stopped StopReason `json:"stopped,omitempty"` // StopFailed, StopInterrupted, StopHung or StopStalled when the parent stopped it
	Stderr  string     `json:"stderr,omitempty"`  // the tail of the child's stderr
	// Foreign is what the child printed on stdout and stderr outside its
	// stream (nil: nothing); Warning is the line to show for it.
	Foreign *ForeignOutput `json:"foreign,omitempty"`
	// StreamErr is the first fault of the child's stream (a record over
	// MaxRecord, skipped), if any.
	StreamErr string  `json:"stream_error,omitempty"`
	Verdict   Health  `json:"verdict"`
	Wall      float64 `json:"wall_s"`
	// Machine is what other processes and steal took while it ran.
	Machine Machine `json:"machine"`
	// Account is the explain package's account of the captured profiles
	// (markdown), when the scenario captured any.
	Account  string `json:"account,omitempty"`
	Headline string `json:"headline,omitempty"`
}

// Add records one line of a scenario's stream in its Result.
func (res *Result) Add(l Sample) {
	switch l.Type {
	case SampleWindow:
		res.Windows = append(res.Windows, l)
		res.Last = l
	case SampleEnd:
		e := l
		res.End, res.Last = &e, l
	case SampleFlight:
		res.Flight = l.Flight
	}
}

// Compact returns a copy of sum without the latency histograms (each is
// about 28K counts; they stay in samples.jsonl's end lines) for summary.json.
func Compact(sum *Summary) *Summary {
	c := *sum
	c.Results = make([]Result, len(sum.Results))
	for i, r := range sum.Results {
		if r.End != nil {
			e := *r.End
			e.Hist = nil
			r.End = &e
		}
		r.Last.Hist = nil
		c.Results[i] = r
	}
	return &c
}

// Machine is what the rest of the machine did while one scenario ran, from
// /proc/stat: the CPU that processes other than the scenario's child and
// gcstress itself used, and the CPU the hypervisor gave to other guests
// (steal), each as average cores over the scenario's wall time. A plain
// value; zero where /proc/stat cannot be read (not Linux).
//
// A verdict that holds only on a quiet machine is not a result: a scenario
// run while others took more than BusyCores is flagged in every report.
type Machine struct {
	OthersCores float64 `json:"others_cores"`
	StealCores  float64 `json:"steal_cores"`
}

// BusyCores is the average CPU (cores) that other processes and steal may
// take during a scenario before the reports warn that the machine was busy:
// a quarter of a core.
const BusyCores = 0.25

// Busy reports whether others and steal together took more than BusyCores.
func (m Machine) Busy() bool { return m.OthersCores+m.StealCores > BusyCores }

// ForeignOutput is what a scenario's child printed outside its stream: the
// byte counts (all of it) and the files holding its ends ("" when nothing
// was printed or the scenario has no folder). A plain value.
type ForeignOutput struct {
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`
	StdoutFile  string `json:"stdout_file,omitempty"`
	StderrFile  string `json:"stderr_file,omitempty"`
	// ExitedOK: the child exited with status 0 (a failed child's stderr is
	// its diagnosis, not foreign output to warn about).
	ExitedOK bool `json:"exited_ok"`
}

// Warning is the line to show for a scenario's foreign output ("" when
// there is none to warn about): every byte on stdout, and stderr of a
// child that exited normally.
func (f *ForeignOutput) Warning(name string) string {
	if f == nil || (f.StdoutBytes == 0 && (f.StderrBytes == 0 || !f.ExitedOK)) {
		return ""
	}
	msg := fmt.Sprintf("warning: %s: the child printed %d bytes on stdout and %d on stderr outside its stream", name, f.StdoutBytes, f.StderrBytes)
	var kept []string
	for _, p := range []string{f.StdoutFile, f.StderrFile} {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) > 0 {
		msg += fmt.Sprintf(" (kept in %v)", kept)
	}
	return msg
}

// ExitOfEnd is how a child that left its end line ended, as the end line
// says: at its hard memory cap, failed by an error of its engine or a
// Put, or interrupted (told to stop before its load ended: the run's
// Ctrl-C or a signal); ok is false for a normal end (keys written,
// run-time cap). The parent (package gcstress's runner) and ReadResults
// both map an end line through it.
func ExitOfEnd(end *Sample) (e Exit, ok bool) {
	switch end.Reason {
	case StopRSSCap:
		return Exit{RSSCap: true}, true
	case StopError:
		return Exit{Died: true, Message: "error: " + end.Err}, true
	case StopInterrupted:
		return Exit{Interrupted: true, Message: InterruptedEndMessage}, true
	}
	return Exit{}, false
}

// InterruptedEndMessage is the Exit.Message of a child whose end line says
// its load was interrupted.
const InterruptedEndMessage = "the load was told to stop; its end record covers the part that ran"
