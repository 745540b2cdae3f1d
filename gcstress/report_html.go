package gcstress

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/writegc/writegc/internal/workload"
)

// report.html is one self-contained file: uPlot (vendored in web/, MIT
// licence beside it), the page's own script and styles, and the run's data
// as JSON are all inlined, so it opens from file:// with no network. Its
// charts show the same windows as the PNG charts (plus assist %, RSS and
// p99 latency), with zoom, values on hover and kinds shown or hidden; then
// the addendum, failure and GC tables and the explain accounts.

//go:embed web/uPlot.iife.min.js web/uPlot.min.css web/gcstress.js web/gcstress.css web/report.js web/report.html.tmpl web/live.js web/live.html.tmpl
var webFS embed.FS

// webAsset returns an embedded file of web/; a missing one is a build bug.
func webAsset(name string) string {
	b, err := fs.ReadFile(webFS, "web/"+name)
	if err != nil {
		panic("gcstress: embedded web asset: " + err.Error())
	}
	return string(b)
}

// pageTemplate parses an embedded page template.
func pageTemplate(name string) *template.Template {
	return template.Must(template.New(name).Parse(webAsset(name)))
}

// pageData fills a page template: every script and style is inlined.
type pageData struct {
	Title    string
	UPlotCSS template.CSS
	CSS      template.CSS
	UPlotJS  template.JS
	JS       template.JS
	PageJS   template.JS
	Data     template.JS // JSON; encoding/json escapes <, > and &, so it cannot close the script element
}

func newPageData(title, pageJS string, data any) (pageData, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return pageData{}, fmt.Errorf("gcstress: page data: %w", err)
	}
	return pageData{Title: title, UPlotCSS: template.CSS(webAsset("uPlot.min.css")), CSS: template.CSS(webAsset("gcstress.css")),
		UPlotJS: template.JS(webAsset("uPlot.iife.min.js")), JS: template.JS(webAsset("gcstress.js")),
		PageJS: template.JS(webAsset(pageJS)), Data: template.JS(b)}, nil
}

// nums is a series of numbers for the pages; NaN is written as null (no
// value: a GOMEMLIMIT that is off, a latency that was not timed).
type nums []float64

// MarshalJSON writes the numbers with NaN as null.
func (n nums) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', 6, 64)
	}
	return append(b, ']'), nil
}

// webPoint is one window as both pages draw it: the live page receives one
// per window line, report.html a scenario's windows as arrays (webWindows).
type webPoint struct {
	Name     string  `json:"name"`
	Kind     string  `json:"kind"`
	Group    string  `json:"group"`
	Value    string  `json:"value"`
	T        float64 `json:"t"`
	MBps     float64 `json:"mbps"`
	GC       float64 `json:"gc"`     // % of busy CPU, of the window's span
	Assist   float64 `json:"assist"` // % of busy CPU, of the window's span
	Live     float64 `json:"live"`   // heap MiB
	Goal     float64 `json:"goal"`
	Limit    any     `json:"limit"` // GOMEMLIMIT MiB, null when off
	RSS      float64 `json:"rss"`
	P99      any     `json:"p99"` // ms, null when no Put was timed
	Cls      Class   `json:"cls"`
	Progress float64 `json:"progress"`
	Verdict  Class   `json:"verdict,omitempty"` // the scenario's class so far
}

const mib1 = 1 << 20

// pointOf is window w of a scenario, with wh its health (nil: not known).
func pointOf(s Scenario, w Sample, wh *WindowHealth) webPoint {
	p := webPoint{Name: s.Name, Kind: s.Kind, Group: s.Group, Value: workload.FormatSize(s.Value), T: w.T, MBps: w.MBps,
		GC: w.GCPct, Assist: w.AssistPct, Live: float64(w.HeapLive) / mib1, Goal: float64(w.HeapGoal) / mib1,
		RSS: float64(w.RSS) / mib1, Progress: w.Progress}
	if s.Name == "" {
		p.Name = w.Scenario
	}
	if w.MemLimit > 0 {
		p.Limit = float64(w.MemLimit) / mib1
	}
	if w.LatN > 0 || w.LatP99 > 0 {
		p.P99 = float64(w.LatP99) / 1e6
	}
	if wh != nil {
		p.GC, p.Assist, p.Cls = wh.GCPct, wh.AssistPct, wh.Class
	}
	return p
}

// webWindows are a scenario's windows as one array per figure (webPoint's
// fields), for report.html.
type webWindows struct {
	T      nums    `json:"t"`
	MBps   nums    `json:"mbps"`
	GC     nums    `json:"gc"`
	Assist nums    `json:"assist"`
	Live   nums    `json:"live"`
	Goal   nums    `json:"goal"`
	Limit  nums    `json:"limit"`
	RSS    nums    `json:"rss"`
	P99    nums    `json:"p99"`
	Cls    []Class `json:"cls"`
}

func (ww *webWindows) add(p webPoint) {
	orNaN := func(v any) float64 {
		if f, ok := v.(float64); ok {
			return f
		}
		return math.NaN()
	}
	ww.T, ww.MBps, ww.GC, ww.Assist = append(ww.T, p.T), append(ww.MBps, p.MBps), append(ww.GC, p.GC), append(ww.Assist, p.Assist)
	ww.Live, ww.Goal, ww.Limit = append(ww.Live, p.Live), append(ww.Goal, p.Goal), append(ww.Limit, orNaN(p.Limit))
	ww.RSS, ww.P99, ww.Cls = append(ww.RSS, p.RSS), append(ww.P99, orNaN(p.P99)), append(ww.Cls, p.Cls)
}

type webScenario struct {
	Name     string     `json:"name"`
	Kind     string     `json:"kind"`
	Group    string     `json:"group"`
	Value    string     `json:"value"`
	Class    Class      `json:"class"`
	Progress float64    `json:"progress"`
	W        webWindows `json:"w"`
}

type webTable struct {
	Title  string     `json:"title"`
	Note   string     `json:"note,omitempty"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

type webThroughput struct {
	Values []string `json:"values"`
	Kinds  []struct {
		Kind string `json:"kind"`
		MBps nums   `json:"mbps"` // 0 for a failed scenario (drawn as a gap)
	} `json:"kinds"`
}

// reportData is report.html's JSON.
type reportData struct {
	Meta       [][2]string   `json:"meta"`
	Tables     []webTable    `json:"tables"`
	Scenarios  []webScenario `json:"scenarios"`
	Throughput webThroughput `json:"throughput"`
	Accounts   []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"accounts"`
	Rules string `json:"rules"`
}

// WriteHTML writes report.html's page for sum to w (see the top of this
// file). It reads only sum, so calls may run concurrently; the page holds
// every window of every scenario (about 150 bytes each).
func WriteHTML(w io.Writer, sum *Summary) error {
	pd, err := newPageData(sum.Started.Format("2006-01-02 15:04:05Z"), "report.js", newReportData(sum))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate("report.html.tmpl").Execute(&buf, pd); err != nil {
		return fmt.Errorf("gcstress: report.html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteHTMLFile writes dir/report.html atomically, replacing any earlier
// one, and records it in dir's manifest; an error wraps ErrWrite and names
// the file.
func WriteHTMLFile(dir string, sum *Summary) error {
	o, err := openOutFiles(dir, nil)
	if err != nil {
		return err
	}
	return o.write("report.html", func(w io.Writer) error { return WriteHTML(w, sum) })
}

func newReportData(sum *Summary) reportData {
	d := reportData{Meta: reportMeta(sum), Rules: sum.Rules + ". " + sum.SpanNote}
	rs := sum.Results
	h, rows := addendumTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Random write throughput", Note: "Key+value MB/s (MB = 10^6 B) and health, as the Hypertable addendum's table.", Header: h, Rows: rows})
	h, rows = failureTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Failure, collapse and stall scenarios", Note: failureSettings(rs), Header: h, Rows: rows})
	h, rows = openLoopTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Open loop", Note: "Target vs achieved rate; service time vs latency from each Put's intended start.", Header: h, Rows: rows})
	if len(sum.Capacity) > 0 {
		h, rows = capacityTable(sum.Capacity)
		d.Tables = append(d.Tables, webTable{Title: "Capacity", Note: "The highest open-loop rate (key+value MB/s) at which the collector stays healthy. " +
			capacityNotes(sum.Capacity, thresholdsOf(rs), noEscape), Header: h, Rows: rows})
	}
	h, rows = gcTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "GC per scenario", Header: h, Rows: rows})
	d.Tables = append(d.Tables, scenarioTable(sum))
	for _, r := range rs {
		if r.Account != "" {
			d.Accounts = append(d.Accounts, struct {
				Name string `json:"name"`
				Text string `json:"text"`
			}{r.Scenario.Name, r.Account})
		}
		if r.Scenario.Group == SetCapacity {
			// One short run per step: the capacity table and capacity.png
			// show them; a timeline of dozens of steps would be noise.
			continue
		}
		ws := webScenario{Name: r.Scenario.Name, Kind: r.Scenario.Kind, Group: r.Scenario.Group,
			Value: workload.FormatSize(r.Scenario.Value), Class: r.Verdict.Class, Progress: r.Last.Progress}
		for i, w := range r.Windows {
			var wh *WindowHealth
			if i < len(r.Verdict.Windows) {
				wh = &r.Verdict.Windows[i]
			}
			ws.W.add(pointOf(r.Scenario, w, wh))
		}
		if e := r.End; e != nil && (len(ws.W.T) == 0 || e.T > ws.W.T[len(ws.W.T)-1]) {
			// The end record closes the line, as in the PNG charts.
			p := pointOf(r.Scenario, *e, nil)
			p.Cls = r.Verdict.Class
			ws.W.add(p)
		}
		d.Scenarios = append(d.Scenarios, ws)
	}
	d.Throughput = throughputData(group(rs, "matrix"))
	return d
}

func reportMeta(sum *Summary) [][2]string {
	m := [][2]string{{"command", sum.Command}}
	if sum.Commit != "" {
		m = append(m, [2]string{"commit", sum.Commit})
	}
	m = append(m, [2]string{"Go", fmt.Sprintf("%s, GOEXPERIMENT %s, %s/%s", sum.GoVersion, sum.GOEXPERIMENT, sum.GOOS, sum.GOARCH)},
		[2]string{"machine", fmt.Sprintf("%d CPUs (%s), %s memory%s", sum.CPUs, orUnknown(sum.CPUModel), gib(sum.MemTotal), machineLoad(sum))},
		[2]string{"time", fmt.Sprintf("started %s, finished %s (%.0f s)", sum.Started.Format("2006-01-02 15:04:05Z"),
			sum.Finished.Format("15:04:05Z"), sum.Finished.Sub(sum.Started).Seconds())})
	if note := busyNote(sum.Results); note != "" {
		m = append(m, [2]string{"note", note})
	}
	if sum.Interrupted {
		m = append(m, [2]string{"interrupted", fmt.Sprintf("this report covers the %d scenario(s) that ran", len(sum.Results))})
	}
	return m
}

// scenarioTable is one row per scenario: its settings, class and why.
func scenarioTable(sum *Summary) webTable {
	t := webTable{Title: "Scenarios", Header: []string{"Scenario", "Settings", "Health", "Why", "Stopped", "Exit"}}
	for _, r := range sum.Results {
		stop := string(r.Stopped)
		if r.End != nil && stop == "" {
			stop = "load: " + string(r.End.Reason)
		}
		t.Rows = append(t.Rows, []string{r.Scenario.Name, r.Scenario.Describe(), string(r.Verdict.Class), r.Verdict.Why, stop, r.Exit.Message})
	}
	return t
}

func throughputData(rs []Result) webThroughput {
	var tp webThroughput
	var values []int64
	for _, r := range rs {
		found := false
		for _, v := range values {
			found = found || v == r.Scenario.Value
		}
		if !found {
			values = append(values, r.Scenario.Value)
			tp.Values = append(tp.Values, workload.FormatSize(r.Scenario.Value))
		}
	}
	for _, k := range kindsOf(rs) {
		mb := make(nums, len(values))
		for vi, v := range values {
			for _, r := range rs {
				if r.Scenario.Kind == k && r.Scenario.Value == v && r.Verdict.Class != Failed {
					mb[vi] = figuresOf(r).MBps
				}
			}
		}
		tp.Kinds = append(tp.Kinds, struct {
			Kind string `json:"kind"`
			MBps nums   `json:"mbps"`
		}{k, mb})
	}
	return tp
}

// RebuildReports regenerates the reports of the results folder dir from its
// samples.jsonl (the command's `gcstress report DIR`): the charts, report.md
// and report.html. The run's metadata (command, machine, times, thresholds)
// and what only the parent knew (profile accounts, exits, machine load) come
// from summary.json when it is there; without it the default thresholds
// classify the windows. summary.json and samples.jsonl are not modified.
// Each report is written atomically and recorded in dir's manifest (one is
// started when dir has none); a failed write wraps ErrWrite and names the
// file. A dir without samples.jsonl is refused with an error wrapping
// ErrUsage.
// It must not run while a run writes to dir; samples.jsonl lines are read
// up to 16 MiB each (ReadResults).
func RebuildReports(dir string) (*Summary, error) {
	f, err := os.Open(filepath.Join(dir, "samples.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("%w: report: %v", ErrUsage, err)
	}
	defer f.Close()
	sum, err := readSummary(dir)
	if err != nil {
		return nil, err
	}
	rs, err := ReadResults(f, sum.Thresholds)
	if err != nil {
		return nil, err
	}
	sum.Results = mergeResults(rs, sum.Results, sum.Thresholds)
	o, err := openOutFiles(dir, nil)
	if err != nil {
		return sum, err
	}
	return sum, o.writeReports(sum)
}

// readSummary reads dir/summary.json; a missing one gives a Summary with the
// default thresholds.
func readSummary(dir string) (*Summary, error) {
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

// mergeResults gives each scenario replayed from samples.jsonl what only
// summary.json holds of it (the parent's view: exit, stop, accounts,
// machine load), reclassifying it when the exit differs.
func mergeResults(replayed, recorded []Result, th Thresholds) []Result {
	byName := map[string]Result{}
	for _, r := range recorded {
		byName[r.Scenario.Name] = r
	}
	for i := range replayed {
		r := &replayed[i]
		old, ok := byName[r.Scenario.Name]
		if !ok {
			continue
		}
		r.Account, r.Headline, r.Machine, r.Flight = old.Account, old.Headline, old.Machine, old.Flight
		r.Stopped, r.Stderr, r.Wall = old.Stopped, old.Stderr, old.Wall
		r.Foreign, r.StreamErr = old.Foreign, old.StreamErr
		if old.Exit != r.Exit {
			r.Exit = old.Exit
			r.Verdict = Classify(r.Windows, r.Exit, th)
		}
	}
	return replayed
}
