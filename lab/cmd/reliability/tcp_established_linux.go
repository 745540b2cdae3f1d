package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// established tells, without reading, whether the server has not closed c
// yet: the kernel's TCP state is still ESTABLISHED (TCP_INFO).
func established(c net.Conn) (bool, error) {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return false, err
	}
	var info *unix.TCPInfo
	var ierr error
	if err := rc.Control(func(fd uintptr) { info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil {
		return false, err
	}
	if ierr != nil {
		return false, ierr
	}
	return info.State == unix.BPF_TCP_ESTABLISHED, nil
}
