//go:build !unix

package gcbench

import "time"

// processCPU has no portable source off Unix: Stop then omits cpu-ns/op.
func processCPU() (time.Duration, bool) { return 0, false }
