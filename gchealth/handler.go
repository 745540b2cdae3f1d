package gchealth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxQuery is the longest query string the Handler reads (bytes); a longer
// one gets 414 before it is parsed.
const MaxQuery = 1024

// Handler returns the Monitor's status as an http.Handler, to mount on any
// path: ?format=json gives Status as JSON, no format (or format=html) a
// self-contained HTML page charting the last Options.History windows as
// inline SVG (it loads nothing; it reloads itself every 5 s). GET and HEAD
// only (405 otherwise, with Allow); a query over MaxQuery bytes gets 414,
// an unparsable query or another format 400, and more than
// Options.MaxInFlight requests at once 503 with Retry-After. It does not
// check Host or who asks: mount it where only operators reach it (the
// example binds loopback). Safe for concurrent use; it answers after
// Close with the last state.
func (m *Monitor) Handler() http.Handler { return handler{m} }

type handler struct{ m *Monitor }

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "gchealth: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if len(r.URL.RawQuery) > MaxQuery {
		http.Error(w, "gchealth: query longer than "+strconv.Itoa(MaxQuery)+" bytes", http.StatusRequestURITooLong)
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, "gchealth: bad query", http.StatusBadRequest)
		return
	}
	format := q.Get("format")
	if format != "" && format != "html" && format != "json" {
		http.Error(w, "gchealth: format must be json or html", http.StatusBadRequest)
		return
	}
	select {
	case h.m.sem <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		http.Error(w, "gchealth: busy", http.StatusServiceUnavailable)
		return
	}
	body, err := h.render(format)
	<-h.m.sem // the slot bounds rendering, not a client's reading: a slow reader holds none
	if err != nil {
		http.Error(w, "gchealth: cannot render the status", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	if format == "json" {
		hd.Set("Content-Type", "application/json")
	} else {
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// render renders the status in format ("json", or "" and "html" for the
// page) into a buffer.
func (h handler) render(format string) ([]byte, error) {
	if format == "json" {
		body, err := json.Marshal(h.m.State())
		return append(body, '\n'), err
	}
	return h.m.page()
}

// chart is one SVG chart of the page.
type chart struct {
	Title  string
	Max    string // the y axis' top, printed
	Lines  []line
	Bands  []band // the state strip
	Height int    // of the plot; the time axis is drawn below it
	Full   int    // of the whole SVG
	Axis   []tick
}

type line struct {
	Name, Colour, Points string
}

type band struct {
	X, W   string
	Colour string
	State  State
}

// tick is one label of a chart's time axis.
type tick struct {
	X, Label, Anchor string
}

var stateColour = [...]string{"#2e7d32", "#f9a825", "#ef6c00", "#c62828"}

const (
	chartW, chartH = 600.0, 120.0
	maxTicks       = 7  // labels on a time axis, at most
	axisH          = 18 // px below a plot for its time axis
)

// timeScale maps a window's end time (unix ms) to x, over the span from
// the first window's start to the last window's end.
type timeScale struct{ t0, t1 int64 }

func newTimeScale(pts []point, window time.Duration) timeScale {
	if len(pts) == 0 {
		return timeScale{}
	}
	s := timeScale{t0: pts[0].t - window.Milliseconds(), t1: pts[len(pts)-1].t}
	if s.t1 <= s.t0 {
		s.t0 = s.t1 - 1
	}
	return s
}

func (s timeScale) x(t int64) float64 {
	if s.t1 == s.t0 {
		return 0
	}
	return min(max(float64(t-s.t0)/float64(s.t1-s.t0), 0), 1) * chartW
}

// tickSteps are the time axis' candidate steps, shortest first.
var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	7 * 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour}

// axis returns the time axis' labels: UTC times at round multiples of a
// step that gives at most maxTicks of them, the date added when the span
// passes a day.
func (s timeScale) axis() []tick {
	span := time.Duration(s.t1-s.t0) * time.Millisecond
	if span <= 0 {
		return nil
	}
	step := tickSteps[len(tickSteps)-1]
	for _, st := range tickSteps {
		if span/st < maxTicks {
			step = st
			break
		}
	}
	layout := "15:04:05"
	switch {
	case step >= 24*time.Hour:
		layout = "2006-01-02"
	case span > 24*time.Hour:
		layout = "01-02 15:04"
	case step >= time.Minute:
		layout = "15:04"
	}
	var out []tick
	ms := step.Milliseconds()
	for t := (s.t0 + ms - 1) / ms * ms; t <= s.t1 && len(out) < maxTicks+1; t += ms {
		x := s.x(t)
		anchor := "middle"
		switch {
		case x < 30:
			anchor = "start"
		case x > chartW-30:
			anchor = "end"
		}
		out = append(out, tick{X: ff(x), Label: time.UnixMilli(t).UTC().Format(layout), Anchor: anchor})
	}
	if len(out) > 0 {
		out[len(out)-1].Label += " UTC"
	}
	return out
}

// page renders the HTML page from the history.
func (m *Monitor) page() ([]byte, error) {
	st := m.State()
	m.mu.Lock()
	pts := m.hist.points()
	m.mu.Unlock()
	d := struct {
		S      Status
		Causes string
		Window string
		Charts []chart
	}{S: st, Window: m.opts.Window.String()}
	for _, c := range st.Causes {
		d.Causes += string(c) + " "
	}
	ts := newTimeScale(pts, m.opts.Window)
	d.Charts = []chart{stateStrip(pts, ts, m.opts.Window),
		lineChart("GC CPU and assists (% of CPU used)", pts, ts, 100, []line{{Name: "GC CPU", Colour: "#1565c0"}, {Name: "assist", Colour: "#6a1b9a"}},
			func(p point) []float32 { return []float32{p.gc, p.assist} }),
		lineChart("heap (% of GOMEMLIMIT, % of goal)", pts, ts, 120, []line{{Name: "live / GOMEMLIMIT", Colour: "#c62828"}, {Name: "objects / goal", Colour: "#00838f"}},
			func(p point) []float32 { return []float32{p.heapLimit, p.heapGoal} }),
		lineChart("pause p99 (µs)", pts, ts, 0, []line{{Name: "pause p99", Colour: "#37474f"}},
			func(p point) []float32 { return []float32{p.pauseP99us} }),
	}
	for i := range d.Charts {
		d.Charts[i].Full = d.Charts[i].Height + axisH
	}
	var buf bytes.Buffer
	err := pageTmpl.Execute(&buf, d)
	return buf.Bytes(), err
}

// stateStrip draws each window's state over the time it covered.
func stateStrip(pts []point, ts timeScale, window time.Duration) chart {
	c := chart{Title: "state per window", Height: 24, Axis: ts.axis()}
	for _, p := range pts {
		r := min(max(int(p.rank), 0), 3)
		x0, x1 := ts.x(p.t-window.Milliseconds()), ts.x(p.t)
		c.Bands = append(c.Bands, band{X: ff(x0), W: ff(max(x1-x0, 0.5)), Colour: stateColour[r], State: States()[r]})
	}
	return c
}

// lineChart draws vals' series over time; top 0 scales to the data.
func lineChart(title string, pts []point, ts timeScale, top float64, lines []line, vals func(point) []float32) chart {
	if top == 0 {
		for _, p := range pts {
			for _, v := range vals(p) {
				top = max(top, float64(v))
			}
		}
		top = max(top*1.1, 1)
	}
	var bs = make([]strings.Builder, len(lines))
	for _, p := range pts {
		for j, v := range vals(p) {
			y := chartH - min(float64(v)/top, 1)*chartH
			fmt.Fprintf(&bs[j], "%s,%s ", ff(ts.x(p.t)), ff(y))
		}
	}
	for j := range lines {
		lines[j].Points = bs[j].String()
	}
	return chart{Title: title, Max: strconv.FormatFloat(top, 'g', 3, 64), Lines: lines, Height: int(chartH), Axis: ts.axis()}
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"since": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"pct":   func(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" },
	"us":    func(s float64) string { return strconv.FormatFloat(s*1e6, 'f', 0, 64) + " µs" },
	"mib":   func(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" },
	"plus":  func(a, b int) int { return a + b },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>gchealth: {{.S.State}}</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}.st{font-size:1.6em;font-weight:600}
.healthy{color:#2e7d32}.elevated{color:#f9a825}.degraded{color:#ef6c00}.failing{color:#c62828}
table{border-collapse:collapse}td{padding:2px 10px 2px 0}svg{background:#fafafa;border:1px solid #ddd;display:block;margin:4px 0 14px}</style></head>
<body><div class="st {{.S.State}}">{{.S.State}}</div>
<p>causes: {{if .Causes}}{{.Causes}}{{else}}none{{end}} · since {{since .S.Since}} · window {{.Window}} · {{.S.Windows}} windows, {{.S.Transitions}} transitions
{{if ne .S.WindowState .S.State}}· latest window {{.S.WindowState}}: held {{.S.State}} until {{.S.CalmNeeded}} calm windows in a row ({{.S.Calm}} so far){{end}}</p>
<table>
<tr><td>GC CPU</td><td>{{pct .S.Figures.GCCPURatio}}</td><td>assists</td><td>{{pct .S.Figures.AssistRatio}}</td></tr>
<tr><td>live heap</td><td>{{mib .S.Figures.HeapLiveBytes}}</td><td>heap goal</td><td>{{mib .S.Figures.HeapGoalBytes}}</td></tr>
<tr><td>GOMEMLIMIT</td><td>{{if .S.Figures.MemLimitBytes}}{{mib .S.Figures.MemLimitBytes}} (live {{pct .S.Figures.HeapToLimitRatio}}){{else}}off{{end}}</td><td>limiter</td><td>{{if .S.Figures.LimiterEngaged}}engaged{{else}}off{{end}}</td></tr>
<tr><td>pause p99</td><td>{{us .S.Figures.PauseP99Seconds}}</td><td>cycles/s</td><td>{{printf "%.2f" .S.Figures.CyclesPerSecond}}</td></tr>
{{if .S.LastCaptureError}}<tr><td>capture</td><td colspan="3">{{.S.LastCaptureError}}</td></tr>{{else if .S.LastCapture}}<tr><td>capture</td><td colspan="3">{{range .S.LastCapture}}{{.}} {{end}}</td></tr>{{end}}
{{if .S.CaptureSkipped}}<tr><td>capture skipped</td><td colspan="3">{{.S.CaptureSkipped}}</td></tr>{{end}}
</table>
{{range .Charts}}<div>{{.Title}}{{if .Max}} (top {{.Max}}){{end}}{{range .Lines}} <span style="color:{{.Colour}}">■ {{.Name}}</span>{{end}}</div>
<svg width="600" height="{{.Full}}" viewBox="0 0 600 {{.Full}}" role="img" aria-label="{{.Title}}">{{range .Bands}}<rect x="{{.X}}" y="0" width="{{.W}}" height="24" fill="{{.Colour}}"><title>{{.State}}</title></rect>{{end}}{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="1.5" points="{{.Points}}"/>{{end}}
{{$h := .Height}}<g class="axis" font-size="10" fill="#555" stroke="#999"><line x1="0" y1="{{$h}}" x2="600" y2="{{$h}}"/>{{range .Axis}}<line x1="{{.X}}" y1="{{$h}}" x2="{{.X}}" y2="{{plus $h 4}}"/><text x="{{.X}}" y="{{plus $h 15}}" text-anchor="{{.Anchor}}" stroke="none">{{.Label}}</text>{{end}}</g></svg>
{{end}}</body></html>
`))
