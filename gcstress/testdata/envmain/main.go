// Command envmain is a user's gcstress command as the build-environment
// tests build it (-build-pkg): cli.Main around writegc's kinds.
package main

import (
	"context"
	"os"

	"github.com/writegc/writegc/gcstress/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
