package writepath

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuf is a goroutine-safe log sink.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func rawConn(t *testing.T, ts *TCPServer, hello bool) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", ts.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if hello {
		c.Write(AppendFrame(nil, FrameHello, 0, []byte(ProtocolMagic)))
		if _, _, err := ReadFrame(c, nil, 64); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// waitClosed reads until the server closes c.
func waitClosed(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [256]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatal("server did not close the connection")
			}
			return
		}
	}
}

// TestTCPBadClients: garbage, truncated frames, an oversized length prefix,
// a malformed payload or a dropped connection each close that connection
// with a logged error while a well-behaved client keeps being served.
func TestTCPBadClients(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree", Regions: 2})
	logs := &syncBuf{}
	ts, err := ListenTCP(s, "", TCPServerOptions{Logger: slog.New(slog.NewTextHandler(logs, nil)), MaxFrame: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	good, err := DialTCP(ts.Addr().String(), TCPClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	goodClient := NewDirect(good)
	mg := NewMultiGetter(good)

	putBatch := NewBatch(0)
	putBatch.Add([]byte("key"), []byte("value"))
	cases := []struct {
		name  string
		hello bool
		send  []byte
		close bool // close the write side after sending
		want  string
	}{
		{"garbage-handshake", false, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), false, "handshake"},
		{"garbage-frame", true, AppendFrame(nil, 0x42, 1, []byte("zzz")), false, "unknown frame type"},
		{"oversized-length", true, binary.LittleEndian.AppendUint32(nil, 0xfffffff0), false, "frame too large"},
		{"short-length", true, binary.LittleEndian.AppendUint32(nil, 2), false, "frame length"},
		{"truncated-frame", true, AppendFrame(nil, FramePut, 1, putBatch.Bytes())[:12], true, "unexpected EOF"},
		{"malformed-batch", true, AppendFrame(nil, FramePut, 1, []byte{5, 0, 0, 0, 200}), false, "malformed"},
		{"malformed-keys", true, AppendFrame(nil, FrameGet, 1, []byte{9, 0, 0, 0, 1}), false, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := ts.ConnErrors()
			c := rawConn(t, ts, tc.hello)
			c.Write(tc.send)
			if tc.close {
				c.(*net.TCPConn).CloseWrite()
			}
			waitClosed(t, c)
			deadline := time.Now().Add(5 * time.Second)
			for ts.ConnErrors() == before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if ts.ConnErrors() == before {
				t.Fatal("no connection error counted")
			}
			if l := logs.String(); !strings.Contains(l, tc.want) {
				t.Fatalf("log lacks %q:\n%s", tc.want, l)
			}
			// The good connection still works.
			if err := goodClient.Put([]byte(tc.name), []byte("ok")); err != nil {
				t.Fatal(err)
			}
			if vals, err := mg.MultiGet(context.Background(), [][]byte{[]byte(tc.name)}, MultiGetParallel); err != nil || string(vals[0]) != "ok" {
				t.Fatalf("good client after %s: %q %v", tc.name, vals, err)
			}
		})
	}

	t.Run("dropped-connection", func(t *testing.T) {
		// A client that disappears with requests in flight.
		c := rawConn(t, ts, true)
		big := NewBatch(0)
		for i := range 2000 {
			big.Add([]byte{byte(i), byte(i >> 8), 1}, make([]byte, 100))
		}
		var req []byte
		for id := range uint32(20) {
			req = AppendFrame(req, FramePut, id, big.Bytes())
		}
		c.Write(req)
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // RST
		time.Sleep(50 * time.Millisecond)
		if err := goodClient.Put([]byte("after-drop"), []byte("ok")); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("client-sees-server-drop", func(t *testing.T) {
		ts2, _ := ListenTCP(s, "", TCPServerOptions{})
		tr, err := DialTCP(ts2.Addr().String(), TCPClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		ts2.Close()
		c := NewDirect(tr)
		var perr error
		for range 100 {
			if perr = c.Put([]byte("x"), nil); perr != nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(perr, ErrConnLost) {
			t.Fatalf("Put over a dropped connection: %v", perr)
		}
	})
}

func TestTCPRequestTooLarge(t *testing.T) {
	s := newTestServer(t, ServerOptions{Kind: "btree"})
	ts, _ := ListenTCP(s, "", TCPServerOptions{MaxFrame: 4096})
	defer ts.Close()
	tr, err := DialTCP(ts.Addr().String(), TCPClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// The client learns the server's limit at handshake and refuses locally.
	if err := NewDirect(tr).Put([]byte("k"), make([]byte, 8000)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatal(err)
	}
	if err := NewDirect(tr).Put([]byte("k"), make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
}
