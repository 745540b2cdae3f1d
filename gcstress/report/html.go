package report

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

// HTMLFile is the results folder's report.html.
const HTMLFile Name = "report.html"

var htmlFormat = Format{Name: HTMLFile, When: AtRun | AtRebuild, Owns: is(string(HTMLFile)),
	Files: one(string(HTMLFile), func(w io.Writer, sum *results.Summary, _ []string) error { return WriteHTML(w, sum) })}

// report.html is one self-contained file: uPlot (vendored in web/, MIT
// licence beside it), the page's own script and styles, and the run's data
// as JSON are all inlined, so it opens from file:// with no network. Its
// charts show the same windows as the PNG charts (plus assist %, RSS and
// p99 latency), each kind in its colour there (view.KindColourHex), with
// zoom, values on hover and kinds shown or hidden; then the conclusions,
// the addendum, failure and GC tables (long texts wrap; a table wider than
// the page scrolls in its own box) and the explain accounts.

// webWindows are a scenario's windows as one array per figure (webPoint's
// fields), for report.html.
type webWindows struct {
	T      view.Nums       `json:"t"`
	MBps   view.Nums       `json:"mbps"`
	GC     view.Nums       `json:"gc"`
	Assist view.Nums       `json:"assist"`
	Live   view.Nums       `json:"live"`
	Obj    view.Nums       `json:"objects"`
	Goal   view.Nums       `json:"goal"`
	Limit  view.Nums       `json:"limit"`
	RSS    view.Nums       `json:"rss"`
	P99    view.Nums       `json:"p99"`
	Cls    []results.Class `json:"cls"`
}

func (ww *webWindows) add(p view.Point) {
	orNaN := func(v any) float64 {
		if f, ok := v.(float64); ok {
			return f
		}
		return math.NaN()
	}
	ww.T, ww.MBps, ww.GC, ww.Assist = append(ww.T, p.T), append(ww.MBps, p.MBps), append(ww.GC, p.GC), append(ww.Assist, p.Assist)
	ww.Live, ww.Obj, ww.Goal, ww.Limit = append(ww.Live, p.Live), append(ww.Obj, p.Objects), append(ww.Goal, p.Goal), append(ww.Limit, orNaN(p.Limit))
	ww.RSS, ww.P99, ww.Cls = append(ww.RSS, p.RSS), append(ww.P99, orNaN(p.P99)), append(ww.Cls, p.Cls)
}

type webScenario struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Color    string        `json:"color"` // view.KindColourHex(Kind), as in the PNG charts
	Group    string        `json:"group"`
	Value    string        `json:"value"`
	Class    results.Class `json:"class"`
	Progress float64       `json:"progress"`
	RSSCap   float64       `json:"rss_cap,omitempty"` // MiB; 0: none
	W        webWindows    `json:"w"`
	// Env is the build environment (-build-envs), "" for none; Color is
	// then view.EnvColourHex: each (kind, env) its own shade and label.
	Env string `json:"env,omitempty"`
}

type webTable struct {
	Title  string     `json:"title"`
	Note   string     `json:"note,omitempty"`
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

type webThroughput struct {
	Values []string        `json:"values"`
	Kinds  []webKindPoints `json:"kinds"`
}

// webKindPoints is one kind's line in report.html's throughput chart.
type webKindPoints struct {
	Kind  string    `json:"kind"`
	Color string    `json:"color"` // view.KindColourHex(Kind)
	MBps  view.Nums `json:"mbps"`  // 0 for a failed scenario (drawn as a gap)
}

// reportData is report.html's JSON.
type reportData struct {
	// Headline is the line the page opens with, under its title
	// (headline.go); "" for none.
	Headline   string        `json:"headline,omitempty"`
	Meta       [][2]string   `json:"meta"`
	Tables     []webTable    `json:"tables"`
	Scenarios  []webScenario `json:"scenarios"`
	Throughput webThroughput `json:"throughput"`
	Accounts   []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"accounts"`
	Rules string `json:"rules"`
	// Readers is one chart per mix of the mixed workloads (readers.go).
	Readers []webReaders `json:"readers,omitempty"`
	// MMU is the MMU curves of the traced scenarios (mmu.go); nil without.
	MMU *webMMU `json:"mmu,omitempty"`
	// Frontier is one scatter per kind (frontier.go); empty without one.
	Frontier []webFrontier `json:"frontier,omitempty"`
}

// WriteHTML writes report.html's page for sum to w (see the top of this
// file). It reads only sum, so calls may run concurrently; the page holds
// every window of every scenario (about 150 bytes each).
func WriteHTML(w io.Writer, sum *results.Summary) error {
	pd, err := view.NewPageData(sum.Started.Format("2006-01-02 15:04:05Z"), "report.js", newReportData(sum))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := view.Template("report.html.tmpl").Execute(&buf, pd); err != nil {
		return fmt.Errorf("gcstress: report.html: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func newReportData(sum *results.Summary) reportData {
	d := reportData{Headline: headline(sum, noEscape), Meta: reportMeta(sum), Rules: sum.Rules + ". " + sum.SpanNote}
	rs := sum.Results
	d.Tables = append(d.Tables, conclusionTable(sum))
	h, rows := addendumTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Random write throughput", Note: "Key+value MB/s (MB = 10^6 B) and health, as the Hypertable addendum's table.", Header: h, Rows: rows})
	h, rows = failureTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Failure, collapse and stall scenarios", Note: failureSettings(rs), Header: h, Rows: rows})
	h, rows = openLoopTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "Open loop", Note: "Target vs achieved rate; service time vs latency from each Put's intended start.", Header: h, Rows: rows})
	d.Tables = append(d.Tables, readerWebTables(rs)...)
	d.Readers = readerWebCharts(rs)
	d.MMU = mmuWebChart(rs)
	if h, rows := mmuTable(rs); len(rows) > 0 {
		d.Tables = append(d.Tables, webTable{Title: "The collector over time: MMU and mark assists", Note: mmuNote, Header: h, Rows: rows})
	}
	if len(sum.Capacity) > 0 {
		h, rows = capacityTable(sum.Capacity)
		d.Tables = append(d.Tables, webTable{Title: "Capacity", Note: "The highest open-loop rate (key+value MB/s) at which the collector stays healthy. " +
			capacityNotes(sum.Capacity, thresholdsOf(rs), noEscape), Header: h, Rows: rows})
	}
	d.Tables = append(d.Tables, frontierWebTables(sum)...)
	d.Frontier = frontierWebData(sum)
	h, rows = gcTable(rs)
	d.Tables = append(d.Tables, webTable{Title: "GC per scenario", Header: h, Rows: rows})
	if h, rows = costTable(rs); len(rows) > 0 {
		d.Tables = append(d.Tables, webTable{Title: "GC cost per entry, per Put and per GB written", Note: costNote, Header: h, Rows: rows})
	}
	if h, rows = repeatsTable(rs); len(rows) > 0 {
		d.Tables = append(d.Tables, webTable{Title: "Repeated runs", Note: "With -count: median [least to greatest] per scenario; gcstress compare judges two such runs.", Header: h, Rows: rows})
	}
	if h, rows = envTable(rs); len(rows) > 0 {
		d.Tables = append(d.Tables, webTable{Title: "Build environments", Note: envNote, Header: h, Rows: rows})
	}
	d.Tables = append(d.Tables, scenarioTable(sum))
	for _, r := range rs {
		if r.Account != "" {
			d.Accounts = append(d.Accounts, struct {
				Name string `json:"name"`
				Text string `json:"text"`
			}{r.Scenario.Name, r.Account})
		}
		if r.Scenario.Group == results.SetCapacity || r.Scenario.Group == results.SetFrontier {
			// One short run per step: the capacity table and capacity.png
			// show them; a timeline of dozens of steps would be noise.
			continue
		}
		ws := webScenario{Name: r.Scenario.Name, Kind: r.Scenario.Kind, Color: view.KindColourHex(r.Scenario.Kind), Group: r.Scenario.Group,
			Value: workload.FormatSize(r.Scenario.Value), Class: r.Verdict.Class, Progress: r.Last.Progress,
			RSSCap: float64(r.Scenario.RSSCap) / (1 << 20), Env: r.Scenario.BuildEnv}
		if ws.Env != "" {
			ws.Color = view.EnvColourHex(ws.Kind, view.EnvIndex(sum.BuildEnvs, ws.Env))
		}
		for i, w := range r.Windows {
			var wh *results.WindowHealth
			if i < len(r.Verdict.Windows) {
				wh = &r.Verdict.Windows[i]
			}
			ws.W.add(view.PointOf(r.Scenario, w, wh))
		}
		if e := r.End; e != nil && (len(ws.W.T) == 0 || e.T > ws.W.T[len(ws.W.T)-1]) {
			// The end record closes the line, as in the PNG charts.
			p := view.PointOf(r.Scenario, *e, nil)
			p.Cls = r.Verdict.Class
			ws.W.add(p)
		}
		d.Scenarios = append(d.Scenarios, ws)
	}
	d.Throughput = throughputData(writeMatrix(rs)) // no mix: its throughput is its own table (readers.go)
	return d
}

func reportMeta(sum *results.Summary) [][2]string {
	m := [][2]string{{"command", sum.Command}}
	if sum.Commit != "" {
		m = append(m, [2]string{"commit", sum.Commit})
	}
	m = append(m, [2]string{"Go", fmt.Sprintf("%s, GOEXPERIMENT %s, %s/%s", sum.GoVersion, sum.GOEXPERIMENT, sum.GOOS, sum.GOARCH)},
		[2]string{"machine", view.MachineLine(sum, noEscape) + view.LoadLine(sum)},
		[2]string{"time", fmt.Sprintf("started %s, finished %s (%.0f s)", sum.Started.Format("2006-01-02 15:04:05Z"),
			sum.Finished.Format("15:04:05Z"), sum.Finished.Sub(sum.Started).Seconds())})
	if note := view.BusyNote(sum.Results); note != "" {
		m = append(m, [2]string{"note", note})
	}
	if sum.Interrupted {
		m = append(m, [2]string{"interrupted", fmt.Sprintf("this report covers the %d scenario(s) that ran", len(sum.Results))})
	}
	return m
}

// conclusionTable is the conclusions (conclusion.go), one row each; the
// page escapes them (textContent).
func conclusionTable(sum *results.Summary) webTable {
	t := webTable{Title: "Conclusions", Header: []string{"Conclusion"}}
	if p := openingParagraph(sum, noEscape); p != "" {
		t.Rows = append(t.Rows, []string{p}) // the opening paragraph (opening.go) first
	}
	for _, c := range conclusions(sum, noEscape) {
		t.Rows = append(t.Rows, []string{c})
	}
	return t
}

// scenarioTable is one row per scenario: its settings, class and why.
func scenarioTable(sum *results.Summary) webTable {
	t := webTable{Title: "Scenarios", Header: []string{"Scenario", "Settings", "Health", "Why", "Stopped", "Exit"}}
	for _, r := range sum.Results {
		stop := string(r.Stopped)
		if r.End != nil && stop == "" {
			stop = "load: " + string(r.End.Reason)
		}
		t.Rows = append(t.Rows, []string{r.Scenario.RunLabel(), r.Scenario.Describe(), string(r.Verdict.Class), r.Verdict.Why, stop, r.Exit.Message})
	}
	return t
}

func throughputData(rs []results.Result) webThroughput {
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
	for _, k := range columnsOf(rs) { // a kind, or a kind in a build environment
		mb := make(view.Nums, len(values))
		for vi, v := range values {
			for _, r := range rs {
				if kindColumn(r.Scenario) == k && r.Scenario.Value == v && r.Verdict.Class != results.Failed {
					mb[vi] = view.FiguresOf(r).MBps
				}
			}
		}
		tp.Kinds = append(tp.Kinds, webKindPoints{Kind: k, Color: view.KindColourHex(k), MBps: mb})
	}
	return tp
}
