package writepath

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/writegc/writegc/internal/oskit"
)

// WALLockName is the lock file a server holds in its WAL directory for its
// whole life (see ErrWALLocked). It holds the holder's process id and a
// newline; replay and log deletion ignore it.
const WALLockName = "LOCK"

// WALLockedError is the error of NewServer on a WAL directory another
// server holds; errors.Is(err, ErrWALLocked) is true. PID is the holder's
// process id as it wrote it into the lock file (0 when it could not be
// read); InProcess says the holder is a Server of this process.
type WALLockedError struct {
	Dir       string
	PID       int
	InProcess bool
}

func (e *WALLockedError) Error() string {
	switch {
	case e.InProcess:
		return fmt.Sprintf("%v: %s is held by another server of this process (pid %d)", ErrWALLocked, e.Dir, e.PID)
	case e.PID > 0:
		return fmt.Sprintf("%v: %s is held by process %d (%s)", ErrWALLocked, e.Dir, e.PID, WALLockName)
	}
	return fmt.Sprintf("%v: %s is held by another process (%s names none)", ErrWALLocked, e.Dir, WALLockName)
}

func (e *WALLockedError) Unwrap() error { return ErrWALLocked }

// walLocks is the process-wide registry of locked WAL directories, by
// absolute path with symbolic links resolved. It refuses a second opener in
// this process on every OS; the OS lock (internal/oskit) refuses one in
// another process where the OS has flock(2). Elsewhere nothing refuses
// another process: an exclusively created pid file would, but a crash would
// leave it behind and lock the directory for good.
var walLocks = struct {
	sync.Mutex
	held map[string]bool
}{held: map[string]bool{}}

// walDirLock is a held WAL directory lock. Lifetime: from lockWALDir to
// release, which is called once.
type walDirLock struct {
	key string
	f   *os.File
}

// lockWALDir takes dir's lock (dir exists) or fails with a
// *WALLockedError naming the holder.
func lockWALDir(dir string) (*walDirLock, error) {
	key, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(key); err == nil {
		key = r
	}
	walLocks.Lock()
	defer walLocks.Unlock()
	if walLocks.held[key] {
		return nil, &WALLockedError{Dir: dir, PID: os.Getpid(), InProcess: true}
	}
	path := filepath.Join(dir, WALLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	locked, err := oskit.TryLock(f)
	switch {
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("writepath: locking %s: %w", path, err)
	case !locked:
		pid := readLockPID(f)
		f.Close()
		return nil, &WALLockedError{Dir: dir, PID: pid}
	}
	if err := writeLockPID(f); err != nil {
		err = errors.Join(fmt.Errorf("writepath: writing %s: %w", path, err), oskit.Unlock(f), f.Close())
		return nil, err
	}
	walLocks.held[key] = true
	return &walDirLock{key: key, f: f}, nil
}

// writeLockPID replaces the lock file's content with this process's id.
func writeLockPID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// readLockPID reads the holder's process id (0 if there is none to read).
func readLockPID(f *os.File) int {
	var b [32]byte
	n, _ := f.ReadAt(b[:], 0)
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// release empties the lock file (the next holder writes its own id),
// drops the OS lock and the registry entry. The file itself stays: removing
// it would let two later openers lock two different files.
func (l *walDirLock) release() error {
	err := l.f.Truncate(0)
	err = errors.Join(err, oskit.Unlock(l.f), l.f.Close())
	walLocks.Lock()
	delete(walLocks.held, l.key)
	walLocks.Unlock()
	return err
}
