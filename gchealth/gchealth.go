package gchealth

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/writegc/writegc/gcmetrics"
	"github.com/writegc/writegc/gcmetrics/health"
)

// Window bounds. A window shorter than MinWindow would cost more than it
// tells (most hold no completed GC cycle); one longer than MaxWindow hides
// a spiral for too long.
const (
	DefaultWindow = time.Second
	MinWindow     = 10 * time.Millisecond
	MaxWindow     = time.Hour
	// MaxHistory bounds Options.History (about 40 bytes a window).
	MaxHistory = 100000
	// DefaultCalm is how long the default hysteresis (Options.CalmWindows)
	// holds a state against improvement, in windows.
	DefaultCalm = time.Minute
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
	// Thresholds are the classifier's settings, gcstress's (nil:
	// health.DefaultThresholds).
	// Their share fields (HealthyGC, HealthyAssist, DegradedGC,
	// DegradedAssist) are used; the scenario fields (failure throughput,
	// warm-up, Share) are not, a service having neither.
	Thresholds *health.Thresholds
	// Spiral is the death-spiral rule (zero fields: defaults).
	Spiral Spiral
	// OnSpiral, if set, is called (after OnChange's functions) when the
	// state becomes failing with cause memlimit-spiral; Exit(code) makes the
	// process log one line and exit. Like OnChange's functions it runs on
	// the Monitor's goroutine and may call Close: Close does not wait for a
	// function that is running (see Close).
	OnSpiral func(Change)
	// CaptureDir, if set, receives a capture on every transition into
	// degraded or failing (see Capture*). It is created if missing. It may
	// hold anything else, and be shared by several Monitors (replicas, a
	// process and its restart): a Monitor writes only folders named
	// gchealth-<its ID>-<UTC time>-<sequence>-<state> (and, while writing,
	// .tmp-gchealth-<its ID>-*), and removes only folders it wrote itself,
	// proven so before it touches them (the same directory, only the three
	// capture files, a change.json naming its ID); it never removes
	// anything recursively. Captures of other Monitors, or of this process
	// before a restart, and a folder a crash left half written, are never
	// touched: remove them yourself.
	CaptureDir string
	// MaxCaptures (default 8) and MaxCaptureBytes (default 256 MiB) bound
	// the captures this Monitor keeps in CaptureDir; the oldest go first,
	// the newest always stays.
	MaxCaptures     int
	MaxCaptureBytes int64
	// CaptureEvery is the least time between two captures (default 1 min):
	// a state that flaps does not fill the disk or the CPU. A transition
	// into a state worse than the last capture's is captured all the same
	// (healthy, degraded, failing within a minute: both captured); a
	// transition not captured because of it says so (Change.CaptureSkipped,
	// Status.CaptureSkipped).
	CaptureEvery time.Duration
	// CalmWindows is the hysteresis: the state leaves toward healthy only
	// after this many windows in a row better than it (then it becomes the
	// worst of them), while a worse window takes effect at once. 0 is the
	// default, the windows in DefaultCalm (60 at 1 s windows), so a process
	// hovering at a threshold changes state at most twice a minute; 1
	// holds nothing (the state is the latest window's class).
	CalmWindows int
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

func (o *Options) resolve() (health.Thresholds, error) {
	bad := func(name string, v any, want string) error {
		return fmt.Errorf("%w: %s %v: %s", ErrOptions, name, v, want)
	}
	switch {
	case o.Window == 0:
		o.Window = DefaultWindow
	case o.Window < MinWindow || o.Window > MaxWindow:
		return health.Thresholds{}, bad("Window", o.Window, fmt.Sprintf("give 0 (1s) or %v to %v", MinWindow, MaxWindow))
	}
	th := health.DefaultThresholds()
	if o.Thresholds != nil {
		th = *o.Thresholds
		if err := th.Validate(); err != nil {
			return th, fmt.Errorf("%w: Thresholds: %v", ErrOptions, err)
		}
	}
	o.Spiral.defaults()
	switch p := o.Spiral; {
	case !(p.HeapPct >= 0 && p.HeapPct <= 100): // NaN fails too
		return th, bad("Spiral.HeapPct", p.HeapPct, "give a percentage from 0 to 100")
	case !(p.GCPct >= 0 && p.GCPct <= 100):
		return th, bad("Spiral.GCPct", p.GCPct, "give a percentage from 0 to 100")
	case p.Windows < 1:
		return th, bad("Spiral.Windows", p.Windows, "give at least 1")
	}
	if err := o.checkBounds(bad); err != nil {
		return th, err
	}
	o.defaults()
	return th, nil
}

// checkBounds refuses a negative bound or too long a History, naming the
// option.
func (o *Options) checkBounds(bad func(name string, v any, want string) error) error {
	for _, b := range []struct {
		name string
		v    int64
	}{{"MaxCaptures", int64(o.MaxCaptures)}, {"MaxCaptureBytes", o.MaxCaptureBytes}, {"History", int64(o.History)},
		{"MaxInFlight", int64(o.MaxInFlight)}, {"CaptureEvery", int64(o.CaptureEvery)}, {"FlightWindow", int64(o.FlightWindow)},
		{"CalmWindows", int64(o.CalmWindows)}} {
		if b.v < 0 {
			return bad(b.name, b.v, "give 0 (the default) or more")
		}
	}
	if o.History > MaxHistory {
		return bad("History", o.History, fmt.Sprintf("give at most %d", MaxHistory))
	}
	return nil
}

// defaults fills the zero fields with their defaults.
func (o *Options) defaults() {
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
	if o.CalmWindows == 0 { // Window is resolved: at least MinWindow
		o.CalmWindows = int(max((DefaultCalm+o.Window-1)/o.Window, 1))
	}
}

// Status is the Monitor's state now: what State returns and the Handler's
// JSON. A plain value, a snapshot; it holds no path outside CaptureDir and
// no OS error text (the status page shows it to whoever reaches it).
type Status struct {
	State       State     `json:"state"`
	Causes      []Cause   `json:"causes"`
	WindowS     float64   `json:"window_s"`
	Figures     Figures   `json:"figures"`
	Since       time.Time `json:"since"`       // when the state began (New, before the first window)
	Windows     uint64    `json:"windows"`     // windows classified
	Transitions uint64    `json:"transitions"` // state changes
	// LastCapture names the files of the latest capture, relative to
	// CaptureDir (folder/file); LastCaptureError is the class of the
	// latest capture's failure ("capture failed: disk full"; "" when it
	// succeeded or none ran): Change.CaptureErr has the details.
	LastCapture      []string `json:"last_capture,omitempty"`
	LastCaptureError string   `json:"last_capture_error,omitempty"`
	// CaptureSkipped says why the latest transition that called for a
	// capture got none (within CaptureEvery of a capture of a state as bad
	// or worse); "" when it got one.
	CaptureSkipped string `json:"capture_skipped,omitempty"`
	// WindowState is the latest window's own class; State differs from it
	// while the hysteresis holds State against improvement, for
	// CalmWindows windows in a row better than it (CalmNeeded), of which
	// Calm have passed.
	WindowState State `json:"window_state"`
	Calm        int   `json:"calm_windows"`
	CalmNeeded  int   `json:"calm_needed"`
}

// Change is a transition of state, given to OnChange's functions and
// OnSpiral. A plain value; its slices are its own.
type Change struct {
	From, To State
	Causes   []Cause
	Figures  Figures
	At       time.Time
	// Capture names the files written for this transition (into degraded
	// or failing, with Options.CaptureDir set; paths inside CaptureDir),
	// CaptureErr why some or all could not be (it wraps ErrCapture and the
	// OS's error); both empty when no capture was due (none configured, a
	// better state) or it was skipped, and then CaptureSkipped says why
	// (within CaptureEvery of a capture of a state as bad or worse).
	Capture        []string
	CaptureErr     error
	CaptureSkipped string
}

// Monitor samples and classifies the collector's windows, from New to
// Close. All its methods are safe for concurrent use. It holds one
// goroutine, a gcmetrics.Reader, the page's history (Options.History
// windows) and, with a CaptureDir, the runtime's flight recorder (one per
// process: a second Monitor with a CaptureDir reports the failure in its
// captures' CaptureErr). Functions given to OnChange run on its goroutine,
// one after the other: they should not block for long (windows wait), and
// may call Close.
type Monitor struct {
	opts Options
	th   health.Thresholds
	id   string

	// sampler-owned
	reader    *gcmetrics.Reader
	prev, cur gcmetrics.Snapshot
	delta     gcmetrics.Delta
	last      time.Time
	cls       classifier
	hyst      hysteresis
	cap       *capturer
	win       window                         // the window being classified (reused: no allocation)
	read      func(s *window, now time.Time) // fills a window; tests replace it

	mu          sync.Mutex
	v           verdict // published: after the hysteresis
	raw         State   // the latest window's own class
	since       time.Time
	windows     uint64
	transitions uint64
	lastCapture []string
	lastCapErr  string
	capSkipped  string
	hist        history
	subs        []func(Change)
	// The sampler's phase, for Close: delivering while it runs the
	// service's functions, exited once it returned; parked signals both.
	delivering, exited bool
	parked             *sync.Cond

	sem       chan struct{} // the Handler's slots
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New starts a Monitor with opts. Its only errors wrap ErrOptions, in one
// line naming the option and its value; a capture directory that cannot
// be written is no error here (captures report it).
func New(opts Options) (*Monitor, error) {
	return newWith(opts, nil)
}

// newWith is New with a window source: nil reads the runtime's metrics.
func newWith(opts Options, read func(*window, time.Time)) (*Monitor, error) {
	th, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	m := &Monitor{opts: opts, th: th, id: newID(), reader: gcmetrics.NewReader(), cls: newClassifier(th, opts.Spiral),
		hyst: hysteresis{need: opts.CalmWindows}, v: verdict{state: Healthy}, raw: Healthy, hist: newHistory(opts.History),
		sem: make(chan struct{}, opts.MaxInFlight), stop: make(chan struct{}), done: make(chan struct{})}
	m.parked = sync.NewCond(&m.mu)
	m.read = read
	if read == nil {
		m.read = m.readRuntime
	}
	m.start(time.Now())
	if opts.CaptureDir != "" {
		m.cap = newCapturer(opts, m.id)
	}
	go m.run()
	return m, nil
}

// ID returns the Monitor's id: random, 12 hex digits, in the names of its
// capture folders (gchealth-<ID>-...) and their change.json.
func (m *Monitor) ID() string { return m.id }

// start takes the baseline reading the first window is measured from.
func (m *Monitor) start(now time.Time) {
	m.reader.ReadInto(&m.prev)
	m.reader.ReadInto(&m.cur)
	gcmetrics.SubInto(m.prev, m.cur, &m.delta)
	m.last, m.since = now, now
	m.cls.started, m.cls.prevLimiter = true, m.prev.LimiterLastEnabled
}

func (m *Monitor) run() {
	defer func() {
		m.mu.Lock()
		m.exited = true
		m.parked.Broadcast()
		m.mu.Unlock()
		close(m.done)
	}()
	t := time.NewTicker(m.opts.Window)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		select { // a Close wins over a tick that was ready with it
		case <-m.stop:
			return
		default:
		}
		if ch, ok := m.step(time.Now()); ok {
			if !m.changed(ch) {
				return
			}
		}
	}
}

// step samples and classifies one window ending at now and publishes it;
// on a change of state it returns the Change (allocated then only).
func (m *Monitor) step(now time.Time) (Change, bool) {
	m.win = window{}
	m.read(&m.win, now)
	return m.observe(&m.win, now)
}

// readRuntime fills s with the runtime's window ending at now.
func (m *Monitor) readRuntime(s *window, now time.Time) {
	m.reader.ReadInto(&m.cur)
	gcmetrics.SubInto(m.prev, m.cur, &m.delta)
	s.set(now.Sub(m.last).Seconds(), m.delta, m.cur)
	m.prev, m.cur, m.last = m.cur, m.prev, now
}

// observe classifies window s, ending at now, and publishes it; on a
// change of state it returns the Change. Tests feed it recorded windows.
func (m *Monitor) observe(s *window, now time.Time) (Change, bool) {
	raw := m.cls.step(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.hyst.apply(m.v, raw)
	m.hist.add(now, &v)
	m.windows++
	from := m.v.state
	m.v, m.raw = v, raw.state
	if from == v.state {
		return Change{}, false
	}
	m.since = now
	m.transitions++
	return Change{From: from, To: v.state, Causes: v.causeList(), Figures: v.fig, At: now}, true
}

// changed writes the capture a change calls for and tells the functions.
// It returns false, having told no one, when Close was called first.
func (m *Monitor) changed(ch Change) bool {
	if m.cap != nil && ch.To.Rank() >= Degraded.Rank() && ch.To.Rank() > ch.From.Rank() {
		due, why := m.cap.due(ch)
		if due {
			ch.Capture, ch.CaptureErr = m.cap.capture(ch)
		}
		ch.CaptureSkipped = why
		m.mu.Lock()
		if due {
			m.lastCapture, m.lastCapErr = relative(m.opts.CaptureDir, ch.Capture), errorClass(ch.CaptureErr)
		}
		m.capSkipped = why
		m.mu.Unlock()
	}
	return m.deliver(ch)
}

// deliver runs the service's functions with ch, marked as delivering so
// that a Close (from one of them or from anywhere) does not wait for
// them. It returns false, having run none, when Close was called first.
func (m *Monitor) deliver(ch Change) bool {
	m.mu.Lock()
	select {
	case <-m.stop:
		m.mu.Unlock()
		return false
	default:
	}
	m.delivering = true
	m.parked.Broadcast()
	subs := m.subs
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.delivering = false
		m.mu.Unlock()
	}()
	for _, f := range subs {
		f(ch)
	}
	if ch.To == Failing && m.opts.OnSpiral != nil && len(ch.Causes) > 0 && ch.Causes[0] == CauseMemlimitSpiral {
		m.opts.OnSpiral(ch)
	}
	return true
}

// State returns the state now: the latest window's class, held against
// improvement by the hysteresis (Options.CalmWindows); healthy before the
// first window ends.
func (m *Monitor) State() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Status{State: m.v.state, Causes: m.v.causeList(), WindowS: m.opts.Window.Seconds(), Figures: m.v.fig,
		Since: m.since, Windows: m.windows, Transitions: m.transitions,
		LastCapture: append([]string(nil), m.lastCapture...), LastCaptureError: m.lastCapErr, CaptureSkipped: m.capSkipped,
		WindowState: m.raw, Calm: m.hyst.calm, CalmNeeded: m.opts.CalmWindows}
}

// OnChange adds f to the functions called, on the Monitor's goroutine and
// in the order added, with every change of state from now on. f may call
// Close (Close does not wait for it); it should not block for long, the
// next window waiting for it.
func (m *Monitor) OnChange(f func(Change)) {
	if f == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.subs = append(m.subs, f)
}

// Close stops sampling and the flight recorder, and returns nil. It waits
// for a window being sampled or captured, never for the service's
// functions (OnChange, OnSpiral): if they are running when Close is called
// (one of them may be the caller), they finish the Change they were given,
// and none is called for a later window. State and Handler go on answering
// with the last state. Idempotent: a later Close returns at once.
func (m *Monitor) Close() error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		close(m.stop)
		for !m.exited && !m.delivering {
			m.parked.Wait()
		}
		m.mu.Unlock()
		// The sampler has ended, or is in the functions and ends when they
		// return, without touching the capturer again.
		if m.cap != nil {
			m.cap.close()
		}
	})
	return nil
}
