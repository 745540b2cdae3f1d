// Command explain is a stand-alone entry to "gcstress explain" for use
// before or without cmd/gcstress: go run ./gcstress/explain/cmd/explain -h.
// Exit status: 0 on success, 1 when the explanation failed, 2 on bad usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/writegc/writegc/gcstress/explain"
)

func main() {
	err := explain.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, explain.ErrUsage):
		fmt.Fprintln(os.Stderr, "explain:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "explain:", err)
		os.Exit(1)
	}
}
