package report

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/writegc/writegc/gcstress/results"
)

// TestLiveRefusesForeignHost is the DNS-rebinding case: a request
// whose Host is another site's name (what a rebound page sends) gets 403
// for the page and the stream, and registers no client; the loopback
// names and addresses the URL printed uses are served.
func TestLiveRefusesForeignHost(t *testing.T) {
	ls, srv := liveServer(t, Options{})
	ls.Begin(&results.Summary{Command: "gcstress"}, []results.Scenario{synthScenario("arena/100B")})
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	get := func(host, path string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK && path == "/events" {
			line, _ := bufio.NewReader(resp.Body).ReadString('\n')
			if !strings.HasPrefix(line, "event: begin") {
				t.Errorf("Host %s: stream starts %q", host, line)
			}
		}
		return resp.StatusCode
	}
	for _, host := range []string{"evil.example", "evil.example:" + strconv.Itoa(port), "127.0.0.1.evil.example", "localhost.evil.example:" + strconv.Itoa(port), "10.0.0.1:" + strconv.Itoa(port)} {
		for _, path := range []string{"/", "/events"} {
			if code := get(host, path); code != http.StatusForbidden {
				t.Errorf("Host %s %s: %d, want 403", host, path, code)
			}
		}
	}
	if n := ls.Stats().Clients; n != 0 {
		t.Errorf("refused requests registered %d client(s)", n)
	}
	for _, host := range []string{"127.0.0.1:" + strconv.Itoa(port), "localhost:" + strconv.Itoa(port), "LOCALHOST", "127.0.0.2"} {
		for _, path := range []string{"/", "/events"} {
			if code := get(host, path); code != http.StatusOK {
				t.Errorf("Host %s %s: %d, want 200", host, path, code)
			}
		}
	}
}

// TestLiveRefusesNoHost: an HTTP/1.0 request without a Host header is
// refused too.
func TestLiveRefusesNoHost(t *testing.T) {
	_, srv := liveServer(t, Options{})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("no Host: %d, want 403", resp.StatusCode)
	}
}

// TestAllowedHostListenerAddress: a server bound to an interface's address
// (-http 10.1.2.3:8080) serves requests naming that address, and only it.
func TestAllowedHostListenerAddress(t *testing.T) {
	for _, tc := range []struct {
		local, host string
		want        bool
	}{
		{"10.1.2.3:8080", "10.1.2.3:8080", true},
		{"10.1.2.3:8080", "10.1.2.3", true},
		{"10.1.2.3:8080", "[::ffff:10.1.2.3]:8080", true},
		{"10.1.2.3:8080", "10.1.2.4:8080", false},
		{"10.1.2.3:8080", "nas.local:8080", false},
		{"[fe80::1%eth0]:8080", "[fe80::1%25eth0]:8080", true},
		{"[::1]:8080", "[::1]:8080", true},
		{"10.1.2.3:8080", "", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		addr, err := net.ResolveTCPAddr("tcp", tc.local)
		if err != nil {
			t.Fatal(err)
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		if got := allowedHost(r); got != tc.want {
			t.Errorf("local %s, Host %q: allowed %v, want %v", tc.local, tc.host, got, tc.want)
		}
	}
}
