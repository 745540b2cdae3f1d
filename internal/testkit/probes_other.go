//go:build !linux

package testkit

import (
	"errors"
	"testing"
)

var errUnsupported = errors.New("not made on this system")

// fifo is made on Linux only.
func fifo(string) error { return errUnsupported }

// socket is made on Linux only.
func socket(testing.TB, string) error { return errUnsupported }
