package gchealth

import (
	"errors"
	"syscall"
)

// diskFull says whether err is a full disk or an exhausted quota.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// readOnly says whether err is a read-only file system.
func readOnly(err error) bool { return errors.Is(err, syscall.EROFS) }

// notADir says whether err is a path through something that is not a folder.
func notADir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }
