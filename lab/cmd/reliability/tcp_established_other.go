//go:build !linux

package main

import (
	"errors"
	"net"
)

// errNoTCPInfo: the abuse that watches a connection's TCP state without
// reading it needs Linux's TCP_INFO.
var errNoTCPInfo = errors.New("reliability: reading a connection's TCP state needs Linux (TCP_INFO)")

// established is Linux-only (tcp_established_linux.go); elsewhere the abuse
// that needs it fails with errNoTCPInfo.
func established(net.Conn) (bool, error) { return false, errNoTCPInfo }
