// Command hello prints its first argument: the command TestBuild builds.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("hello", os.Args[1]) }
