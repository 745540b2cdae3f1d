package writepath

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const fdLimitHelperEnv = "WRITEGC_TCP_FDLIMIT_HELPER"

// fdLimitHeadroom is how many descriptors the helper server may open past
// those it has when it lowers its limit: a few connections, then EMFILE.
const fdLimitHeadroom = 8

// TestHelperTCPFDLimit is the child of TestTCPAcceptAtFDLimit: a TCP
// server whose process may open only fdLimitHeadroom more descriptors. It
// prints "addr ADDR", logs to stderr and serves until its stdin ends.
func TestHelperTCPFDLimit(t *testing.T) {
	if os.Getenv(fdLimitHelperEnv) == "" {
		t.Skip("helper process only")
	}
	s, err := NewServer(ServerOptions{Kind: "btree"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	ts, err := ListenTCP(s, "", TCPServerOptions{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	lim.Cur = uint64(len(fds) + fdLimitHeadroom)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("addr", ts.Addr())
	io.Copy(io.Discard, os.Stdin)
	ts.Close()
	s.Close()
}

// fdLimitChild starts the helper and returns it with its address and a
// channel that gets each line it logs.
func fdLimitChild(t *testing.T) (*exec.Cmd, io.WriteCloser, string, <-chan string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperTCPFDLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdLimitHelperEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	logs := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case logs <- sc.Text():
			default: // the test has seen what it needs
			}
		}
	}()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "addr "); ok {
				addr <- a
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatal("helper exited without an address")
		}
		return cmd, stdin, a, logs
	case <-time.After(30 * time.Second):
		t.Fatal("helper not listening")
	}
	return nil, nil, "", nil
}

// TestTCPAcceptAtFDLimit drives a TCP server (in a child process, whose
// descriptor limit it lowers) to its fd limit and back: 40 connections to
// a server that can open 8 more files make its Accept fail with EMFILE;
// the accept loop backs off and retries, so once the clients close, new
// clients are served. Before, the first EMFILE stopped the listener for
// good and new clients hung.
func TestTCPAcceptAtFDLimit(t *testing.T) {
	if os.Getenv(fdLimitHelperEnv) != "" {
		t.Skip()
	}
	_, _, addr, logs := fdLimitChild(t)
	var conns []net.Conn
	for range 5 * fdLimitHeadroom {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second) // the backlog takes them
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	deadline := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case l := <-logs:
			seen = strings.Contains(l, "too many open files") && strings.Contains(l, "retrying")
		case <-deadline:
			t.Fatal("the helper never hit its fd limit")
		}
	}
	for _, c := range conns {
		c.Close()
	}
	tr, err := DialTCP(addr, TCPClientOptions{DialTimeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("dial after the fd limit: %v", err)
	}
	defer tr.Close()
	if err := NewDirect(tr).Put([]byte("k"), []byte("v")); err != nil {
		t.Fatalf("put after the fd limit: %v", err)
	}
	if vals, err := tr.Get([][]byte{[]byte("k")}); err != nil || string(vals[0]) != "v" {
		t.Fatalf("get after the fd limit: %q, %v", vals, err)
	}
}
