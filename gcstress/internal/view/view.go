package view

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/workload"
)

//go:embed web/uPlot.iife.min.js web/uPlot.min.css web/gcstress.js web/gcstress.css web/report.js web/report.html.tmpl web/live.js web/live.html.tmpl
var webFS embed.FS

// webAsset returns an embedded file of web/; a missing one is a build bug.
func Asset(name string) string {
	b, err := fs.ReadFile(webFS, "web/"+name)
	if err != nil {
		panic("gcstress: embedded web asset: " + err.Error())
	}
	return string(b)
}

// pageTemplate parses an embedded page template.
func Template(name string) *template.Template {
	return template.Must(template.New(name).Parse(Asset(name)))
}

// pageData fills a page template: every script and style is inlined.
type PageData struct {
	Title    string
	UPlotCSS template.CSS
	CSS      template.CSS
	UPlotJS  template.JS
	JS       template.JS
	PageJS   template.JS
	Data     template.JS // JSON; encoding/json escapes <, > and &, so it cannot close the script element
}

func NewPageData(title, pageJS string, data any) (PageData, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return PageData{}, fmt.Errorf("gcstress: page data: %w", err)
	}
	return PageData{Title: title, UPlotCSS: template.CSS(Asset("uPlot.min.css")), CSS: template.CSS(Asset("gcstress.css")),
		UPlotJS: template.JS(Asset("uPlot.iife.min.js")), JS: template.JS(Asset("gcstress.js")),
		PageJS: template.JS(Asset(pageJS)), Data: template.JS(b)}, nil
}

// nums is a series of numbers for the pages; NaN is written as null (no
// value: a GOMEMLIMIT that is off, a latency that was not timed).
type Nums []float64

// MarshalJSON writes the numbers with NaN as null.
func (n Nums) MarshalJSON() ([]byte, error) {
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
type Point struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Colour   string        `json:"color"` // KindColourHex(Kind): the pages draw the kind in it
	Group    string        `json:"group"`
	Value    string        `json:"value"`
	T        float64       `json:"t"`
	MBps     float64       `json:"mbps"`
	GC       float64       `json:"gc"`      // % of busy CPU, of the window's span
	Assist   float64       `json:"assist"`  // % of busy CPU, of the window's span
	Live     float64       `json:"live"`    // heap live MiB (/gc/heap/live:bytes)
	Objects  float64       `json:"objects"` // heap object MiB (/gc/heap/objects:bytes): what "heap above goal" compares with Goal
	Goal     float64       `json:"goal"`
	Limit    any           `json:"limit"` // GOMEMLIMIT MiB, null when off
	RSS      float64       `json:"rss"`
	P99      any           `json:"p99"` // ms, null when no Put was timed
	Cls      results.Class `json:"cls"`
	Progress float64       `json:"progress"`
	Verdict  results.Class `json:"verdict,omitempty"` // the scenario's class so far
	// Env is the scenario's build environment (results.Scenario.BuildEnv;
	// -build-envs), "" for none: the pages label its lines with it. A page
	// that knows the run's environments draws it in EnvColourHex.
	Env string `json:"env,omitempty"`
}

const mib1 = 1 << 20

// pointOf is window w of a scenario, with wh its health (nil: not known).
func PointOf(s results.Scenario, w results.Sample, wh *results.WindowHealth) Point {
	p := Point{Name: s.Name, Kind: s.Kind, Colour: KindColourHex(s.Kind), Group: s.Group, Value: workload.FormatSize(s.Value),
		T: w.T, MBps: w.MBps, GC: w.GCPct, Assist: w.AssistPct, Live: float64(w.HeapLive) / mib1,
		Objects: float64(w.HeapObjects) / mib1, Goal: float64(w.HeapGoal) / mib1,
		RSS: float64(w.RSS) / mib1, Progress: w.Progress, Env: s.BuildEnv}
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

// figures are a scenario's whole-run numbers for the tables.
type Figures struct {
	MBps                      float64 // key+value MB/s over the run, MB = 10^6 B
	Keys                      int64
	Seconds                   float64
	Cycles                    uint64
	GCPct, AssistPct          float64
	PauseP50, PauseP99, PMax  float64 // microseconds
	PeakHeap, PeakRSS, Unused uint64
	LatP50, LatP99, LatP999   int64
	LatMax, LatN              int64
	LatMean                   float64
	LatMin, LatP95            int64
	BlockedS                  float64
	Cores                     float64 // CPU cores the child used on average
	Flushes                   int64
}

func FiguresOf(r results.Result) Figures {
	var f Figures
	l := r.Last
	if r.End != nil {
		l = *r.End
	}
	f.Keys, f.Seconds, f.Cycles, f.Flushes = l.Keys, l.T, l.Cycles, l.Flushes
	f.MBps = results.MBps(l.Bytes, l.T)
	f.GCPct, f.AssistPct = r.Verdict.GCPct, r.Verdict.AssistPct
	f.BlockedS = float64(l.BlockedNanos) / 1e9
	if r.End != nil && r.End.T > 0 {
		f.Cores = r.End.ProcCPU / r.End.T
	} else if l.T > 0 {
		var c float64
		for _, w := range r.Windows {
			c += w.ProcCPU
		}
		f.Cores = c / l.T
	}
	for _, w := range r.Windows {
		f.PeakHeap = max(f.PeakHeap, w.HeapObjects)
		f.PeakRSS = max(f.PeakRSS, w.RSS)
		f.Unused = max(f.Unused, w.HeapUnused)
		f.PauseP99 = max(f.PauseP99, w.PauseP99us)
		f.PMax = max(f.PMax, w.PauseMaxus)
		f.PauseP50 = max(f.PauseP50, w.PauseP50us)
		f.LatMax = max(f.LatMax, w.LatMax)
	}
	if e := r.End; e != nil {
		f.PeakHeap, f.PeakRSS = max(f.PeakHeap, e.PeakHeap), max(f.PeakRSS, e.PeakRSS)
		f.PauseP50, f.PauseP99, f.PMax = e.PauseP50us, e.PauseP99us, max(f.PMax, e.PauseMaxus)
		f.LatP50, f.LatP99, f.LatP999, f.LatMax, f.LatN = e.LatP50, e.LatP99, e.LatP999, max(f.LatMax, e.LatMax), e.LatN
		f.LatMean, f.LatMin, f.LatP95 = e.LatMean, e.LatMin, e.LatP95
	} else {
		// No end line (the child died): the worst window's latencies.
		for _, w := range r.Windows {
			f.LatP50, f.LatP99, f.LatP999 = max(f.LatP50, w.LatP50), max(f.LatP99, w.LatP99), max(f.LatP999, w.LatP999)
			f.LatN += w.LatN
		}
	}
	return f
}

// cellText is a scenario's cell in the addendum table: MB/s, or
// "failed at 60% (limiter on 12 s)" as the addendum reported HBase.
func CellText(r results.Result) string {
	f := FiguresOf(r)
	v := r.Verdict
	if v.Class == results.Failed {
		var why []string
		switch {
		case r.Exit.RSSCap:
			why = append(why, "RSS cap")
		case r.Exit.Died:
			why = append(why, "died: "+r.Exit.Message)
		}
		if v.LimiterOn > 0 {
			why = append(why, fmt.Sprintf("limiter on %.0f s", v.LimiterOn))
		}
		s := fmt.Sprintf("failed at %.0f%%", 100*v.FailedAt)
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
		return s
	}
	s := fmt.Sprintf("%.1f", f.MBps)
	switch {
	case r.Stopped == results.StopInterrupted || v.Class == results.Interrupted:
		s += fmt.Sprintf(" (interrupted at %.0f%%)", 100*r.Last.Progress)
	case r.End != nil && r.End.Reason == results.StopDuration:
		s += fmt.Sprintf(" (%.0f%% in %.0f s)", 100*r.End.Progress, r.End.T)
	}
	return s
}

// ns formats nanoseconds compactly.
func NS(v int64) string {
	switch {
	case v <= 0:
		return "-"
	case v < 1_000:
		return fmt.Sprintf("%dns", v)
	case v < 1_000_000:
		return fmt.Sprintf("%.1fµs", float64(v)/1e3)
	case v < 1_000_000_000:
		return fmt.Sprintf("%.1fms", float64(v)/1e6)
	}
	return fmt.Sprintf("%.2fs", float64(v)/1e9)
}

// us formats microseconds compactly.
func US(v float64) string {
	if v <= 0 {
		return "-"
	}
	return NS(int64(v * 1e3))
}

func OrUnknown(s string) string {
	if s == "" {
		return "model unknown"
	}
	return s
}

func GiB(b uint64) string {
	if b == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
