package gchealth

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcstress/results"
)

// Window bounds. A window shorter than MinWindow would cost more than it
// tells (most hold no completed GC cycle); one longer than MaxWindow hides
// a spiral for too long.
const (
	DefaultWindow = time.Second
	MinWindow     = 10 * time.Millisecond
	MaxWindow     = time.Hour
)

// Sentinel errors; compare with errors.Is.
var (
	// ErrOptions: New was given a bad option; the message names it.
	ErrOptions = errors.New("gchealth: bad option")
	// ErrCapture: a capture could not be written (Change.CaptureErr).
	ErrCapture = errors.New("gchealth: capture failed")
)

// Options configure New. The zero Options is valid: 1 s windows,
// gcstress's default thresholds, the default spiral rule, no captures. A
// plain value, read once by New.
type Options struct {
	// Window is the sampling window: 0 for DefaultWindow, else from
	// MinWindow to MaxWindow.
	Window time.Duration
	// Thresholds are gcstress's classifier settings (nil: DefaultThresholds).
	// Their share fields (HealthyGC, HealthyAssist, DegradedGC,
	// DegradedAssist) are used; the scenario fields (failure throughput,
	// warm-up, Share) are not, a service having neither.
	Thresholds *results.Thresholds
	// Spiral is the death-spiral rule (zero fields: defaults).
	Spiral Spiral
	// OnSpiral, if set, is called (after OnChange's functions) when the
	// state becomes failing with cause memlimit-spiral; Exit(code) makes the
	// process log one line and exit.
	OnSpiral func(Change)
	// CaptureDir, if set, receives a capture on every transition into
	// degraded or failing (see Capture*). It is created if missing.
	CaptureDir string
	// MaxCaptures (default 8) and MaxCaptureBytes (default 256 MiB) bound
	// the captures kept in CaptureDir; the oldest go first, the newest
	// always stays.
	MaxCaptures     int
	MaxCaptureBytes int64
	// CaptureEvery is the least time between two captures (default 1 min):
	// a state that flaps does not fill the disk or the CPU.
	CaptureEvery time.Duration
	// FlightWindow is how much trace the flight recorder keeps (default
	// 10 s), FlightMaxBytes its memory bound (default 16 MiB).
	FlightWindow   time.Duration
	FlightMaxBytes uint64
	// History is how many windows the page charts (default 300, at most
	// 100000); about 40 bytes each.
	History int
	// MaxInFlight caps the Handler's requests served at once (default 8);
	// more get 503.
	MaxInFlight int
}

func (o *Options) resolve() (results.Thresholds, error) {
	switch {
	case o.Window == 0:
		o.Window = DefaultWindow
	case o.Window < MinWindow || o.Window > MaxWindow:
		return results.Thresholds{}, fmt.Errorf("%w: Window %v: give 0 (1s) or %v to %v", ErrOptions, o.Window, MinWindow, MaxWindow)
	}
	th := results.DefaultThresholds()
	if o.Thresholds != nil {
		th = *o.Thresholds
		if err := th.Validate(); err != nil {
			return th, fmt.Errorf("%w: Thresholds: %v", ErrOptions, err)
		}
	}
	o.Spiral.defaults()
	if p := o.Spiral; p.HeapPct < 0 || p.HeapPct > 100 || p.GCPct < 0 || p.GCPct > 100 || p.Windows < 1 ||
		math.IsNaN(p.HeapPct) || math.IsNaN(p.GCPct) {
		return th, fmt.Errorf("%w: Spiral %+v: percentages from 0 to 100, at least 1 window", ErrOptions, p)
	}
	if o.MaxCaptures < 0 || o.MaxCaptureBytes < 0 || o.History < 0 || o.History > 100000 || o.MaxInFlight < 0 ||
		o.CaptureEvery < 0 || o.FlightWindow < 0 {
		return th, fmt.Errorf("%w: a negative bound (or History above 100000)", ErrOptions)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.MaxCaptures, 8)
	def(&o.History, 300)
	def(&o.MaxInFlight, 8)
	if o.MaxCaptureBytes == 0 {
		o.MaxCaptureBytes = 256 << 20
	}
	if o.CaptureEvery == 0 {
		o.CaptureEvery = time.Minute
	}
	if o.FlightWindow == 0 {
		o.FlightWindow = 10 * time.Second
	}
	if o.FlightMaxBytes == 0 {
		o.FlightMaxBytes = 16 << 20
	}
	return th, nil
}

// Status is the Monitor's state now: what State returns and the Handler's
// JSON. A plain value, a snapshot.
type Status struct {
	State       State     `json:"state"`
	Causes      []Cause   `json:"causes"`
	WindowS     float64   `json:"window_s"`
	Figures     Figures   `json:"figures"`
	Since       time.Time `json:"since"`       // when the state began (New, before the first window)
	Windows     uint64    `json:"windows"`     // windows classified
	Transitions uint64    `json:"transitions"` // state changes
	// LastCapture names the files of the latest capture; LastCaptureError
	// is the latest capture's failure ("" when it succeeded or none ran).
	LastCapture      []string `json:"last_capture,omitempty"`
	LastCaptureError string   `json:"last_capture_error,omitempty"`
}

// Change is a transition of state, given to OnChange's functions and
// OnSpiral. A plain value; its slices are its own.
type Change struct {
	From, To State
	Causes   []Cause
	Figures  Figures
	At       time.Time
	// Capture names the files written for this transition (into degraded
	// or failing, with Options.CaptureDir set), CaptureErr why some or all
	// could not be (it wraps ErrCapture); both empty when no capture was
	// due (none configured, a better state, or within CaptureEvery).
	Capture    []string
	CaptureErr error
}

// Monitor samples and classifies the collector's windows, from New to
// Close. All its methods are safe for concurrent use. It holds one
// goroutine, a gcmetrics.Reader, the page's history (Options.History
// windows) and, with a CaptureDir, the runtime's flight recorder (one per
// process: a second Monitor with a CaptureDir reports the failure in its
// captures' CaptureErr). Functions given to OnChange run on its goroutine,
// one after the other: they must not block for long nor call Close.
type Monitor struct {
	opts Options
	th   results.Thresholds

	// sampler-owned
	reader    *gcmetrics.Reader
	prev, cur gcmetrics.Snapshot
	delta     gcmetrics.Delta
	last      time.Time
	cls       classifier
	cap       *capturer

	mu          sync.Mutex
	v           verdict
	since       time.Time
	windows     uint64
	transitions uint64
	lastCapture []string
	lastCapErr  string
	hist        history
	subs        []func(Change)

	sem       chan struct{} // the Handler's slots
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New starts a Monitor with opts. Its only errors wrap ErrOptions, in one
// line naming the option; a capture directory that cannot be written is
// no error here (captures report it).
func New(opts Options) (*Monitor, error) {
	th, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	m := &Monitor{opts: opts, th: th, reader: gcmetrics.NewReader(), cls: newClassifier(th, opts.Spiral),
		v: verdict{state: Healthy}, hist: newHistory(opts.History),
		sem: make(chan struct{}, opts.MaxInFlight), stop: make(chan struct{}), done: make(chan struct{})}
	m.start(time.Now())
	if opts.CaptureDir != "" {
		m.cap = newCapturer(opts)
	}
	go m.run()
	return m, nil
}

// start takes the baseline reading the first window is measured from.
func (m *Monitor) start(now time.Time) {
	m.reader.ReadInto(&m.prev)
	m.reader.ReadInto(&m.cur)
	gcmetrics.SubInto(m.prev, m.cur, &m.delta)
	m.last, m.since = now, now
	m.cls.started, m.cls.prevLimiter = true, m.prev.LimiterLastEnabled
}

func (m *Monitor) run() {
	defer close(m.done)
	t := time.NewTicker(m.opts.Window)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			if ch, ok := m.step(time.Now()); ok {
				m.changed(ch)
			}
		}
	}
}

// step samples and classifies one window ending at now and publishes it;
// on a change of state it returns the Change (allocated then only).
func (m *Monitor) step(now time.Time) (Change, bool) {
	m.reader.ReadInto(&m.cur)
	gcmetrics.SubInto(m.prev, m.cur, &m.delta)
	var s results.Sample
	s.Type, s.Dur, s.WinCycles = results.SampleWindow, now.Sub(m.last).Seconds(), m.delta.Cycles
	s.SetGC(m.delta, m.cur)
	m.prev, m.cur, m.last = m.cur, m.prev, now
	return m.observe(&s, now)
}

// observe classifies window s, ending at now, and publishes it; on a
// change of state it returns the Change. Tests feed it recorded windows.
func (m *Monitor) observe(s *results.Sample, now time.Time) (Change, bool) {
	v := m.cls.step(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hist.add(now, &v)
	m.windows++
	from := m.v.state
	m.v = v
	if from == v.state {
		return Change{}, false
	}
	m.since = now
	m.transitions++
	return Change{From: from, To: v.state, Causes: v.causeList(), Figures: v.fig, At: now}, true
}

// changed writes the capture a change calls for and tells the functions.
func (m *Monitor) changed(ch Change) {
	if m.cap != nil && ch.To.Rank() >= Degraded.Rank() && ch.To.Rank() > ch.From.Rank() {
		ch.Capture, ch.CaptureErr = m.cap.capture(ch)
		if ch.Capture != nil || ch.CaptureErr != nil {
			m.mu.Lock()
			m.lastCapture, m.lastCapErr = ch.Capture, ""
			if ch.CaptureErr != nil {
				m.lastCapErr = ch.CaptureErr.Error()
			}
			m.mu.Unlock()
		}
	}
	m.mu.Lock()
	subs := m.subs
	m.mu.Unlock()
	for _, f := range subs {
		f(ch)
	}
	if ch.To == Failing && m.opts.OnSpiral != nil && len(ch.Causes) > 0 && ch.Causes[0] == CauseMemlimitSpiral {
		m.opts.OnSpiral(ch)
	}
}

// State returns the state now: the latest window's (healthy before the
// first window ends).
func (m *Monitor) State() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Status{State: m.v.state, Causes: m.v.causeList(), WindowS: m.opts.Window.Seconds(), Figures: m.v.fig,
		Since: m.since, Windows: m.windows, Transitions: m.transitions,
		LastCapture: append([]string(nil), m.lastCapture...), LastCaptureError: m.lastCapErr}
}

// OnChange adds f to the functions called, on the Monitor's goroutine and
// in the order added, with every change of state from now on.
func (m *Monitor) OnChange(f func(Change)) {
	if f == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subs = append(m.subs, f)
}

// Close stops sampling (waiting for a window in progress and its
// OnChange calls) and the flight recorder. State and Handler go on
// answering with the last state. Idempotent; it returns nil.
func (m *Monitor) Close() error {
	m.closeOnce.Do(func() {
		close(m.stop)
		<-m.done
		if m.cap != nil {
			m.cap.close()
		}
	})
	return nil
}
