package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/writegc/writegc/gchealth"
	"github.com/writegc/writegc/gchealth/gchealthprom"
	"github.com/writegc/writegc/internal/testkit"
	"github.com/writegc/writegc/memtable"
)

// TestRoutes: the service's endpoints in process (fast; make test runs it).
func TestRoutes(t *testing.T) {
	mt, _ := memtable.New(memtable.KindArena, memtable.Options{})
	defer mt.Close()
	mon, err := gchealth.New(gchealth.Options{Window: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(gchealthprom.NewCollector(mon))
	srv := httptest.NewServer(routes(&store{mt: mt}, mon, reg))
	defer srv.Close()
	do := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		method, path, body string
		code               int
		has                string
	}{
		{"PUT", "/kv/k1", "v1", 204, ""},
		{"GET", "/kv/k1", "", 200, "v1"},
		{"GET", "/kv/nope", "", 404, ""},
		{"POST", "/fill?n=1000&size=10", "", 200, `"keys":1000`},
		{"POST", "/fill?n=0&size=10", "", 400, ""},
		{"POST", "/fill?n=10&size=100000000", "", 400, ""},
		{"GET", "/debug/gchealth?format=json", "", 200, `"state":"healthy"`},
		{"GET", "/debug/gchealth", "", 200, "<svg"},
		{"POST", "/debug/gchealth", "", 405, ""},
		{"GET", "/metrics", "", 200, `gchealth_state{state="healthy"} 1`},
	} {
		code, body := do(c.method, c.path, c.body)
		if code != c.code || !strings.Contains(body, c.has) {
			t.Errorf("%s %s: %d %.200q, want %d with %q", c.method, c.path, code, body, c.code, c.has)
		}
	}
}

// TestPrometheusDeployment is the real deployment: the service built and
// run twice under GOMEMLIMIT=128MiB, one on the heap kind and one on the
// arena kind, scraped every second by a real Prometheus (Debian's
// prometheus package; run here on a loopback port with its own config and
// storage, stopped after). The same load (1.2M keys of 10 B) takes the heap
// kind from healthy to degraded or worse, which Prometheus's HTTP API
// shows with a cause label, and the shipped alerting rules
// (gchealth.rules.yml, loaded by this Prometheus) evaluate without error
// and put GCHealthDegraded in pending or firing; the arena kind is never
// degraded and ends healthy. Every wait is bounded and generous (minutes) for a busy 2-core
// machine; it takes about 40 s on a quiet one. Run it with `make
// test-service` (WRITEGC_TEST_SERVICE=1).
func TestPrometheusDeployment(t *testing.T) {
	if os.Getenv("WRITEGC_TEST_SERVICE") != "1" {
		t.Skip("the deployment test runs with `make test-service` (WRITEGC_TEST_SERVICE=1)")
	}
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary in PATH (Debian: apt-get install -y prometheus; .ci/run installs it)")
	}
	bin := testkit.Build(t, ".", "service")
	svc := map[string]string{}
	for _, kind := range []string{memtable.KindHeap, memtable.KindArena} {
		svc[kind] = startService(t, bin, kind)
	}
	p := startPrometheus(t, prom, svc)

	// Healthy before any load.
	for kind := range svc {
		p.waitFor(t, fmt.Sprintf(`gchealth_state{job=%q,state="healthy"} == 1`, kind), 2*time.Minute)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer wg.Wait()
	defer close(stop) // a failure stops the load first
	client := &http.Client{Timeout: 5 * time.Minute}
	for kind, addr := range svc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 24 {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post("http://"+addr+"/fill?n=50000&size=10", "", nil)
				if err != nil {
					t.Errorf("%s fill: %v", kind, err)
					return
				}
				resp.Body.Close()
			}
		}()
	}
	p.waitFor(t, `max_over_time(gchealth_state{job="heap",state=~"degraded|failing"}[10m]) == 1`, 4*time.Minute)
	causes := p.labels(t, `max_over_time(gchealth_cause{job="heap"}[10m]) == 1`, "cause")
	known := map[string]bool{}
	for _, c := range gchealth.Causes() {
		known[string(c)] = true
	}
	if len(causes) == 0 {
		t.Fatal("heap: degraded, but no gchealth_cause series was 1")
	}
	for _, c := range causes {
		if !known[c] {
			t.Errorf("heap: unknown cause %q", c)
		}
	}
	t.Logf("heap kind degraded; causes seen: %v", causes)
	// The shipped alerting rules, loaded by this Prometheus, match the real
	// metrics: the degraded alert went pending (its for: clause) or fired.
	p.waitFor(t, `max_over_time(ALERTS{alertname="GCHealthDegraded",job="heap"}[10m]) == 1`, 2*time.Minute)
	p.rulesHealthy(t)
	wg.Wait()
	// Three more scrapes of the arena service after its load ended.
	time.Sleep(3 * time.Second)
	p.waitFor(t, `gchealth_state{job="arena",state="healthy"} == 1`, 2*time.Minute)
	if bad := p.labels(t, `max_over_time(gchealth_state{job="arena",state=~"degraded|failing"}[10m]) == 1`, "state"); len(bad) > 0 {
		t.Errorf("arena kind was %v under the same load", bad)
	}
}

// startService runs the service on a loopback port chosen by the kernel and
// returns its address, read from its first line.
func startService(t *testing.T, bin, kind string) string {
	t.Helper()
	cmd := exec.Command(bin, "-kind", kind, "-addr", "127.0.0.1:0", "-window", "250ms")
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=128MiB", "GOGC=100")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines, done := make(chan string, 1), make(chan struct{})
	t.Cleanup(func() { cmd.Process.Kill(); <-done; cmd.Wait() })
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		first := true
		for sc.Scan() {
			if first {
				lines <- sc.Text()
				first = false
			}
			t.Logf("%s service: %s", kind, sc.Text())
		}
	}()
	select {
	case l := <-lines:
		i := strings.Index(l, "http://")
		if i < 0 {
			t.Fatalf("%s service: %q", kind, l)
		}
		return strings.TrimSuffix(l[i+len("http://"):], "/")
	case <-time.After(time.Minute):
		t.Fatalf("%s service did not start", kind)
	}
	return ""
}

type promServer struct{ base string }

// startPrometheus runs prometheus with a scrape config of its own (one job
// per service, every second) and a temporary storage folder; stopped after.
func startPrometheus(t *testing.T, bin string, svc map[string]string) promServer {
	t.Helper()
	dir := t.TempDir()
	var cfg strings.Builder
	rules, err := filepath.Abs("gchealth.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n")
	fmt.Fprintf(&cfg, "rule_files:\n  - %q\nscrape_configs:\n", rules)
	for kind, addr := range svc {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    static_configs:\n      - targets: ['%s']\n", kind, addr)
	}
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := promServer{base: "http://" + addr}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready at %s: %v", p.base, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// query runs an instant query and returns its vector's label sets.
func (p promServer) query(q string) ([]map[string]string, error) {
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return nil, err
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", q, r.Error)
	}
	out := make([]map[string]string, len(r.Data.Result))
	for i, s := range r.Data.Result {
		out[i] = s.Metric
	}
	return out, nil
}

// waitFor polls q until its result is not empty, failing after limit.
func (p promServer) waitFor(t *testing.T, q string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		res, err := p.query(q)
		if err == nil && len(res) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s: %v %v", limit, q, res, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rulesHealthy fails the test unless every loaded rule evaluates without
// error (a rule whose expression Prometheus cannot run reports its error).
func (p promServer) rulesHealthy(t *testing.T) {
	t.Helper()
	resp, err := http.Get(p.base + "/api/v1/rules")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name, Health, LastError string
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range r.Data.Groups {
		for _, rule := range g.Rules {
			n++
			if rule.Health != "ok" {
				t.Errorf("rule %s: health %q %s", rule.Name, rule.Health, rule.LastError)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d rules loaded from gchealth.rules.yml, want 3", n)
	}
}

// labels runs q and returns the values of label in its result.
func (p promServer) labels(t *testing.T, q, label string) []string {
	t.Helper()
	res, err := p.query(q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range res {
		out = append(out, m[label])
	}
	return out
}
