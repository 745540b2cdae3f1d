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
	Height int
}

type line struct {
	Name, Colour, Points string
}

type band struct {
	X, W   string
	Colour string
	State  State
}

var stateColour = [...]string{"#2e7d32", "#f9a825", "#ef6c00", "#c62828"}

const chartW, chartH = 600.0, 120.0

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
	d.Charts = []chart{stateStrip(pts),
		lineChart("GC CPU and assists (% of CPU used)", pts, 100, []line{{Name: "GC CPU", Colour: "#1565c0"}, {Name: "assist", Colour: "#6a1b9a"}},
			func(p point) []float32 { return []float32{p.gc, p.assist} }),
		lineChart("heap (% of GOMEMLIMIT, % of goal)", pts, 120, []line{{Name: "live / GOMEMLIMIT", Colour: "#c62828"}, {Name: "objects / goal", Colour: "#00838f"}},
			func(p point) []float32 { return []float32{p.heapLimit, p.heapGoal} }),
		lineChart("pause p99 (µs)", pts, 0, []line{{Name: "pause p99", Colour: "#37474f"}},
			func(p point) []float32 { return []float32{p.pauseP99us} }),
	}
	var buf bytes.Buffer
	err := pageTmpl.Execute(&buf, d)
	return buf.Bytes(), err
}

func stateStrip(pts []point) chart {
	c := chart{Title: "state per window", Height: 24}
	w := chartW / float64(max(len(pts), 1))
	for i, p := range pts {
		r := min(max(int(p.rank), 0), 3)
		c.Bands = append(c.Bands, band{X: ff(float64(i) * w), W: ff(w), Colour: stateColour[r], State: States()[r]})
	}
	return c
}

// lineChart draws vals' series over the windows; top 0 scales to the data.
func lineChart(title string, pts []point, top float64, lines []line, vals func(point) []float32) chart {
	if top == 0 {
		for _, p := range pts {
			for _, v := range vals(p) {
				top = max(top, float64(v))
			}
		}
		top = max(top*1.1, 1)
	}
	var bs = make([]strings.Builder, len(lines))
	step := chartW / float64(max(len(pts)-1, 1))
	for i, p := range pts {
		for j, v := range vals(p) {
			y := chartH - min(float64(v)/top, 1)*chartH
			fmt.Fprintf(&bs[j], "%s,%s ", ff(float64(i)*step), ff(y))
		}
	}
	for j := range lines {
		lines[j].Points = bs[j].String()
	}
	return chart{Title: title, Max: strconv.FormatFloat(top, 'g', 3, 64), Lines: lines, Height: int(chartH)}
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"since": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"pct":   func(r float64) string { return strconv.FormatFloat(100*r, 'f', 1, 64) + "%" },
	"us":    func(s float64) string { return strconv.FormatFloat(s*1e6, 'f', 0, 64) + " µs" },
	"mib":   func(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB" },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>gchealth: {{.S.State}}</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}.st{font-size:1.6em;font-weight:600}
.healthy{color:#2e7d32}.elevated{color:#f9a825}.degraded{color:#ef6c00}.failing{color:#c62828}
table{border-collapse:collapse}td{padding:2px 10px 2px 0}svg{background:#fafafa;border:1px solid #ddd;display:block;margin:4px 0 14px}</style></head>
<body><div class="st {{.S.State}}">{{.S.State}}</div>
<p>causes: {{if .Causes}}{{.Causes}}{{else}}none{{end}} · since {{since .S.Since}} · window {{.Window}} · {{.S.Windows}} windows, {{.S.Transitions}} transitions</p>
<table>
<tr><td>GC CPU</td><td>{{pct .S.Figures.GCCPURatio}}</td><td>assists</td><td>{{pct .S.Figures.AssistRatio}}</td></tr>
<tr><td>live heap</td><td>{{mib .S.Figures.HeapLiveBytes}}</td><td>heap goal</td><td>{{mib .S.Figures.HeapGoalBytes}}</td></tr>
<tr><td>GOMEMLIMIT</td><td>{{if .S.Figures.MemLimitBytes}}{{mib .S.Figures.MemLimitBytes}} (live {{pct .S.Figures.HeapToLimitRatio}}){{else}}off{{end}}</td><td>limiter</td><td>{{if .S.Figures.LimiterEngaged}}engaged{{else}}off{{end}}</td></tr>
<tr><td>pause p99</td><td>{{us .S.Figures.PauseP99Seconds}}</td><td>cycles/s</td><td>{{printf "%.2f" .S.Figures.CyclesPerSecond}}</td></tr>
{{if .S.LastCaptureError}}<tr><td>capture</td><td colspan="3">{{.S.LastCaptureError}}</td></tr>{{else if .S.LastCapture}}<tr><td>capture</td><td colspan="3">{{range .S.LastCapture}}{{.}} {{end}}</td></tr>{{end}}
</table>
{{range .Charts}}<div>{{.Title}}{{if .Max}} (top {{.Max}}){{end}}{{range .Lines}} <span style="color:{{.Colour}}">■ {{.Name}}</span>{{end}}</div>
<svg width="600" height="{{.Height}}" viewBox="0 0 600 {{.Height}}" role="img" aria-label="{{.Title}}">{{range .Bands}}<rect x="{{.X}}" y="0" width="{{.W}}" height="24" fill="{{.Colour}}"><title>{{.State}}</title></rect>{{end}}{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="1.5" points="{{.Points}}"/>{{end}}</svg>
{{end}}</body></html>
`))
