// The hostile module of benchgate's and cmd/benchgate's cleanup tests (they
// copy it into a fresh repository): BenchmarkQuiet, BenchmarkNoisy (prints 3
// MiB of log lines per run), BenchmarkDies (kills its own process, as the
// OOM killer would) and BenchmarkWaits (touches $MARK, then sleeps until
// killed). Each test selects the one benchmark it needs.

package hostile

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var sink int

func BenchmarkQuiet(b *testing.B) {
	for b.Loop() {
		sink++
	}
}

func BenchmarkNoisy(b *testing.B) {
	line := strings.Repeat("log ", 255)
	for i := 0; i < 3<<10; i++ {
		fmt.Println(line)
	}
	for b.Loop() {
		sink++
	}
}

func BenchmarkDies(b *testing.B) {
	p, _ := os.FindProcess(os.Getpid())
	p.Kill()
	time.Sleep(time.Minute)
}

func BenchmarkWaits(b *testing.B) {
	os.WriteFile(os.Getenv("MARK"), nil, 0o644)
	time.Sleep(10 * time.Minute)
}
