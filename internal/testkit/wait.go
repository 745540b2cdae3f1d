package testkit

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Within runs f in a goroutine and returns what it returns; when f has not
// returned within limit it fails the test, naming what.
func Within[T any](t testing.TB, limit time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("%s: still waiting after %v", what, limit)
		panic("unreachable") // Fatalf does not return
	}
}

// Gone waits up to limit for the process pid to be gone, or a zombie
// waiting for its reaper, and says whether it is. It reads
// /proc/PID/stat, so where there is no /proc every process reads as gone.
func Gone(pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if !alive(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// Field 3, the state, follows the parenthesised command, which may
	// hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) == 0 || f[0] != "Z"
}
