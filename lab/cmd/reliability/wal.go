package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/writegc/writegc/writepath"
)

func init() { subcommands["wal"] = runWAL }

// walDamage is one way of damaging a WAL after a server wrote it.
type walDamage struct {
	name  string
	files int // log files to write: 1, or 3 to damage the middle one
	apply func(paths []string) error
}

var walDamages = []walDamage{
	{"zero-filled tail, 8 B", 1, func(ps []string) error { return appendBytes(ps[len(ps)-1], make([]byte, 8)) }},
	{"zero-filled tail, 4 KiB page", 1, func(ps []string) error { return appendBytes(ps[len(ps)-1], make([]byte, 4096)) }},
	{"last record truncated by 5 B", 1, func(ps []string) error { return truncateBy(ps[len(ps)-1], 5) }},
	{"bit flip mid-file, only log", 1, func(ps []string) error { return flipMiddle(ps[0]) }},
	{"bit flip mid-file, middle of 3 logs", 3, func(ps []string) error { return flipMiddle(ps[len(ps)/2]) }},
	{"64 B of garbage appended", 1, func(ps []string) error {
		g := make([]byte, 64)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range g {
			g[i] = byte(r.Uint32())
		}
		return appendBytes(ps[len(ps)-1], g)
	}},
}

// walRow is one cell of the matrix: a damage recovered in one mode.
type walRow struct {
	damage    string
	mode      writepath.WALRecoveryMode
	acked     int
	recovered int
	prefix    bool
	report    writepath.WALReplayStats
	openErr   string // "" = opened; file names without the temporary directory
}

// runWAL is `reliability wal`: the WAL corruption matrix.
func runWAL(args []string, stdout, stderr io.Writer) int {
	fs := subcommandFlags("wal", "usage: reliability wal [-keys N] [-sync none|batch] [-out FILE]\n\nFor each damage and each WAL recovery mode: writes N acknowledged keys through a\nwritegc server with a WAL, closes it, damages the log, reopens it and reports what\ncame back and what the server reported lost. Then, for each recovery mode, a second\nserver (in this process, then in another) tries to open a WAL directory a first one\nholds: it must be refused, and the first one's keys must all survive.", stderr)
	out := fs.String("out", "", "also write the Markdown table to `FILE`")
	keys := fs.Int("keys", 2000, "acknowledged keys to write per cell, 30..100000")
	syncName := fs.String("sync", "none", "WAL sync mode while writing: none or batch")
	if !parseSubcommand(fs, args, stderr) {
		return 2
	}
	if *keys < 30 || *keys > 100000 {
		fmt.Fprintf(stderr, "reliability wal: -keys %d not in [30, 100000]\n", *keys)
		return 2
	}
	mode, err := writepath.ParseSyncMode(*syncName)
	if err != nil || mode == writepath.SyncAlways {
		fmt.Fprintf(stderr, "reliability wal: -sync %q: want none or batch\n", *syncName)
		return 2
	}
	var rows []walRow
	for _, d := range walDamages {
		for _, m := range writepath.WALRecoveryModes() {
			r, err := runWALCell(d, m, *keys, mode)
			if err != nil {
				fmt.Fprintf(stderr, "reliability wal: %s, %v: %v\n", d.name, m, err)
				return 1
			}
			rows = append(rows, r)
		}
	}
	lockRows, err := runWALLockCells(*keys, mode)
	if err != nil {
		fmt.Fprintf(stderr, "reliability wal: %v\n", err)
		return 1
	}
	var b strings.Builder
	writeWALTable(&b, *keys, mode, rows)
	writeWALLockTable(&b, mode, lockRows)
	return emitTable(fs.Name(), b.String(), *out, stdout, stderr)
}

func walKey(i int) []byte   { return fmt.Appendf(nil, "wal-key-%08d", i) }
func walValue(i int) []byte { return fmt.Appendf(nil, "value-%08d-%s", i, strings.Repeat("v", 24)) }

// runWALCell writes n keys, one record each, damages the logs and reopens
// them in mode m. A temporary directory holds it all and is removed.
func runWALCell(d walDamage, m writepath.WALRecoveryMode, n int, sync writepath.SyncMode) (walRow, error) {
	dir, err := os.MkdirTemp("", "writegc-reliability-wal-")
	if err != nil {
		return walRow{}, err
	}
	defer os.RemoveAll(dir)
	opts := writepath.ServerOptions{Kind: "btree", WAL: writepath.WALOptions{Dir: dir, Sync: sync}}
	// Each server starts a new log file: d.files sessions write d.files logs.
	for k := range d.files {
		if err := writeKeys(opts, k*n/d.files, (k+1)*n/d.files); err != nil {
			return walRow{}, err
		}
	}
	paths, err := filepath.Glob(filepath.Join(dir, "wal-*.log"))
	if err != nil || len(paths) < d.files {
		return walRow{}, fmt.Errorf("%d log files, want %d or more (%v)", len(paths), d.files, err)
	}
	if err := d.apply(paths); err != nil {
		return walRow{}, err
	}
	row := walRow{damage: d.name, mode: m, acked: n}
	opts.WAL.Recovery = m
	s, err := writepath.NewServer(opts)
	if err != nil {
		var ce *writepath.WALCorruptError
		if !errors.As(err, &ce) {
			return walRow{}, err
		}
		row.openErr = strings.ReplaceAll(err.Error(), dir+string(os.PathSeparator), "")
		row.report = ce.Replay
		return row, nil
	}
	defer s.Close()
	row.report = s.WALReplay()
	firstMiss := n
	for i := range n {
		v, ok, _ := s.Get(walKey(i))
		if ok && bytes.Equal(v, walValue(i)) {
			row.recovered++
		} else if firstMiss == n {
			firstMiss = i
		}
	}
	row.prefix = row.recovered == firstMiss
	return row, nil
}

// writeKeys writes keys [from, to) through a fresh server on opts and
// closes it.
func writeKeys(opts writepath.ServerOptions, from, to int) error {
	s, err := writepath.NewServer(opts)
	if err != nil {
		return err
	}
	for i := from; i < to; i++ {
		if err := s.Put(walKey(i), walValue(i)); err != nil {
			s.Close()
			return fmt.Errorf("put %d: %w", i, err)
		}
	}
	return s.Close()
}

func writeWALTable(w io.Writer, n int, sync writepath.SyncMode, rows []walRow) {
	fmt.Fprintf(w, "## WAL corruption matrix\n\n%d keys acknowledged per cell (one record each, sync %v, clean close), then the damage, then a reopen.\n\n", n, sync)
	fmt.Fprintln(w, "| damage | recovery mode | acked | recovered | prefix | records lost (reported) | bytes ignored (reported) | silent loss | open error |")
	fmt.Fprintln(w, "|---|---|---:|---:|---|---:|---:|---|---|")
	for _, r := range rows {
		recovered, prefix := fmt.Sprint(r.recovered), yesNo(r.prefix)
		errText := "-"
		if r.openErr != "" {
			recovered, prefix = "-", "-"
			errText = strings.ReplaceAll(r.openErr, "|", `\|`)
		}
		silent := r.openErr == "" && r.recovered < r.acked && r.report.Lossless()
		fmt.Fprintf(w, "| %s | %v | %d | %s | %s | %d | %d | %s | %s |\n",
			r.damage, r.mode, r.acked, recovered, prefix, r.report.RecordsSkipped, r.report.BytesIgnored, yesNo(silent), errText)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func appendBytes(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

func truncateBy(path string, n int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Truncate(path, fi.Size()-n)
}

func flipMiddle(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	data[len(data)/2] ^= 0x04
	return os.WriteFile(path, data, 0o644)
}
