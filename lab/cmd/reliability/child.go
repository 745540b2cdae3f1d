package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/writegc/writegc/writepath"
)

// childServeTCP is the hidden subcommand that runs the TCP server under
// test in its own process, so that its peak RSS is its own.
const childServeTCP = "child-serve-tcp"

// childEnv marks a process started by the harness (tests re-exec the test
// binary and need to tell the child apart).
const childEnv = "WRITEGC_RELIABILITY_CHILD"

// runChildServer serves a fresh server on 127.0.0.1:0, prints "addr ADDR"
// and serves until its standard input ends (the parent exits or closes it).
func runChildServer(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(childServeTCP, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o writepath.TCPServerOptions
	var so writepath.ServerOptions
	fs.Int64Var(&so.FlushThreshold, "flush-threshold", 0, "ServerOptions.FlushThreshold")
	fs.IntVar(&o.MaxReply, "max-reply", 0, "TCPServerOptions.MaxReply")
	fs.IntVar(&o.MaxConns, "max-conns", 0, "TCPServerOptions.MaxConns")
	fs.IntVar(&o.MaxConnsPerPeer, "max-conns-per-peer", 0, "TCPServerOptions.MaxConnsPerPeer")
	fs.DurationVar(&o.ReadTimeout, "read-timeout", 0, "TCPServerOptions.ReadTimeout")
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", 0, "TCPServerOptions.IdleTimeout")
	fs.DurationVar(&o.WriteTimeout, "write-timeout", 0, "TCPServerOptions.WriteTimeout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	s, err := writepath.NewServer(so)
	if err != nil {
		fmt.Fprintln(stderr, "reliability child:", err)
		return 1
	}
	defer s.Close()
	ts, err := writepath.ListenTCP(s, "127.0.0.1:0", o)
	if err != nil {
		fmt.Fprintln(stderr, "reliability child:", err)
		return 1
	}
	defer ts.Close()
	fmt.Fprintf(stdout, "addr %s\n", ts.Addr())
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// child is a running server process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
}

// startChild re-executes this binary as the server with args.
func startChild(args []string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, append([]string{childServeTCP}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), "addr "); ok {
			c.addr = a
			return c, nil
		}
		c.stop()
		return nil, fmt.Errorf("child server said %q", l)
	case <-time.After(10 * time.Second):
		c.stop()
		return nil, fmt.Errorf("child server did not start within 10 s")
	}
}

// stop ends the child: its input closes, then it is killed if still there.
func (c *child) stop() {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// memKiB reads VmHWM (peak resident set) and VmRSS of the child, in KiB.
func (c *child) memKiB() (hwm, rss int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || (k != "VmHWM" && k != "VmRSS") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %q", k, v)
		}
		if k == "VmHWM" {
			hwm = n
		} else {
			rss = n
		}
	}
	return hwm, rss, nil
}
