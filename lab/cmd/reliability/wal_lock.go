package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/writegc/writegc/writepath"
)

// childHoldWAL is the hidden subcommand that holds a WAL directory from
// another process for the lock cells of `reliability wal`.
const childHoldWAL = "child-hold-wal"

func init() { hidden[childHoldWAL] = runChildHoldWAL }

// runChildHoldWAL opens a server on -dir, acknowledges keys [0, -keys),
// prints "ready" and holds the directory until its standard input ends,
// then closes the server.
func runChildHoldWAL(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(childHoldWAL, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "WAL directory")
	keys := fs.Int("keys", 0, "keys to acknowledge")
	syncName := fs.String("sync", "batch", "WAL sync mode")
	if err := fs.Parse(args); err != nil || *dir == "" {
		return 2
	}
	mode, err := writepath.ParseSyncMode(*syncName)
	if err != nil {
		fmt.Fprintln(stderr, "reliability child:", err)
		return 2
	}
	s, err := writepath.NewServer(writepath.ServerOptions{Kind: "btree", WAL: writepath.WALOptions{Dir: *dir, Sync: mode}})
	if err != nil {
		fmt.Fprintln(stderr, "reliability child:", err)
		return 1
	}
	for i := range *keys {
		if err := s.Put(walKey(i), walValue(i)); err != nil {
			fmt.Fprintln(stderr, "reliability child:", err)
			s.Close()
			return 1
		}
	}
	fmt.Fprintln(stdout, "ready")
	io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Fprintln(stderr, "reliability child:", err)
		return 1
	}
	return 0
}

// walLockRow is one lock cell: a second opener while the directory is held.
type walLockRow struct {
	holder    string // "this process" or "another process"
	mode      writepath.WALRecoveryMode
	acked     int
	second    string // what the second open did
	recovered int    // of the holder's acknowledged keys, after it closed
}

// secondOpen tries a second server on opts and says what happened: it
// must be refused with ErrWALLocked naming the holder's process id.
func secondOpen(opts writepath.ServerOptions, holderPID int) string {
	s, err := writepath.NewServer(opts)
	if err == nil {
		s.Close()
		return "OPENED (two servers on one WAL)"
	}
	var le *writepath.WALLockedError
	if !errors.As(err, &le) {
		return "failed otherwise: " + err.Error()
	}
	if le.PID != holderPID {
		return fmt.Sprintf("refused: ErrWALLocked, holder pid %d (want %d)", le.PID, holderPID)
	}
	return "refused: ErrWALLocked naming the holder's pid"
}

// countWALKeys reopens opts and counts keys [0, n) with their values.
func countWALKeys(opts writepath.ServerOptions, n int) (int, error) {
	s, err := writepath.NewServer(opts)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	k := 0
	for i := range n {
		if v, ok, _ := s.Get(walKey(i)); ok && string(v) == string(walValue(i)) {
			k++
		}
	}
	return k, nil
}

// runWALLockInProcess: a server holds dir and acknowledges n keys, half of
// them after a second server tried to open it in mode m.
func runWALLockInProcess(dir string, m writepath.WALRecoveryMode, n int, sync writepath.SyncMode) (walLockRow, error) {
	opts := writepath.ServerOptions{Kind: "btree", WAL: writepath.WALOptions{Dir: dir, Sync: sync}}
	s, err := writepath.NewServer(opts)
	if err != nil {
		return walLockRow{}, err
	}
	put := func(from, to int) error {
		for i := from; i < to; i++ {
			if err := s.Put(walKey(i), walValue(i)); err != nil {
				return fmt.Errorf("put %d: %w", i, err)
			}
		}
		return nil
	}
	row := walLockRow{holder: "this process", mode: m, acked: n}
	second := opts
	second.WAL.Recovery = m
	err = put(0, n/2)
	if err == nil {
		row.second = secondOpen(second, os.Getpid())
		err = put(n/2, n)
	}
	if err = errors.Join(err, s.Close()); err != nil {
		return walLockRow{}, err
	}
	row.recovered, err = countWALKeys(second, n)
	return row, err
}

// runWALLockAcrossProcesses: a child process holds dir with n
// acknowledged keys while this one tries to open it in mode m.
func runWALLockAcrossProcesses(dir string, m writepath.WALRecoveryMode, n int, sync writepath.SyncMode) (walLockRow, error) {
	exe, err := os.Executable()
	if err != nil {
		return walLockRow{}, err
	}
	cmd := exec.Command(exe, childHoldWAL, "-dir", dir, "-keys", fmt.Sprint(n), "-sync", sync.String())
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return walLockRow{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return walLockRow{}, err
	}
	if err := cmd.Start(); err != nil {
		return walLockRow{}, err
	}
	defer cmd.Process.Kill() // after a clean exit: a no-op
	if err := awaitReady(out); err != nil {
		stdin.Close()
		cmd.Wait()
		return walLockRow{}, err
	}
	opts := writepath.ServerOptions{Kind: "btree", WAL: writepath.WALOptions{Dir: dir, Sync: sync, Recovery: m}}
	row := walLockRow{holder: "another process", mode: m, acked: n, second: secondOpen(opts, cmd.Process.Pid)}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return walLockRow{}, fmt.Errorf("holder process: %w", err)
	}
	row.recovered, err = countWALKeys(opts, n)
	return row, err
}

// awaitReady waits (at most 30 s) for the holder's "ready" line.
func awaitReady(out io.Reader) error {
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if l != "ready" {
			return fmt.Errorf("WAL holder process said %q", l)
		}
		return nil
	case <-time.After(30 * time.Second):
		return errors.New("WAL holder process not ready within 30 s")
	}
}

// walLockCell is one lock cell's run on a WAL directory of its own.
type walLockCell func(dir string, m writepath.WALRecoveryMode, n int, sync writepath.SyncMode) (walLockRow, error)

// runWALLockCells runs the lock cells: each holder, each recovery mode,
// each in a fresh temporary directory removed after it.
func runWALLockCells(n int, sync writepath.SyncMode) ([]walLockRow, error) {
	var rows []walLockRow
	for _, cell := range []walLockCell{runWALLockInProcess, runWALLockAcrossProcesses} {
		for _, m := range writepath.WALRecoveryModes() {
			r, err := cell.inTempDir(m, n, sync)
			if err != nil {
				return nil, fmt.Errorf("WAL lock, %v: %w", m, err)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// inTempDir runs the cell in a temporary directory it removes after.
func (cell walLockCell) inTempDir(m writepath.WALRecoveryMode, n int, sync writepath.SyncMode) (walLockRow, error) {
	dir, err := os.MkdirTemp("", "writegc-reliability-wal-lock-")
	if err != nil {
		return walLockRow{}, err
	}
	defer os.RemoveAll(dir)
	return cell(dir, m, n, sync)
}

func writeWALLockTable(w io.Writer, sync writepath.SyncMode, rows []walLockRow) {
	fmt.Fprintf(w, "\n## WAL directory lock\n\nA server holds the WAL directory and acknowledges its keys (sync %v); a second server tries to open the directory in each recovery mode; the holder closes and the directory is reopened.\n\n", sync)
	fmt.Fprintln(w, "| holder | second opener's recovery mode | acked | second open | recovered after the holder closed | lost |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %v | %d | %s | %d | %d |\n", r.holder, r.mode, r.acked, r.second, r.recovered, r.acked-r.recovered)
	}
}
