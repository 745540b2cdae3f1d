// Command offheapprobe fills fresh arena and offheap memtables in
// interleaved rounds and records, per fill, the time and the kernel's view
// (page faults, CPU time, /proc/vmstat huge page, compaction and NUMA
// counters, the chunks' mappings from /proc/self/smaps and their 2 MiB
// alignment, the THP settings), for the offheap 10 KB bimodality
// (docs/offheap-bimodality.md):
//
//	offheapprobe [-rounds 5] [-keys 100000] [-value 10KB] [-huge advise|system|never]
//	             [-prefault=true] [-gc=true] [-free-os=false] [-procs 0] [-out FILE]
//
// Each fill is one JSON line (lab/offheapprobe.Record), on standard
// output, or written atomically to -out at the end. The summary table,
// offheap's fill time over arena's per round, goes to standard error.
// With -procs P (P >= 1) the command re-executes itself P times, one child
// after the other, each a fresh process doing the whole run, since the
// bimodality is per process; the records carry the child's index (proc).
// Exit status: 0 done, 1 a failure, 2 bad usage.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/writegc/writegc/arena"
	"github.com/writegc/writegc/internal/workload"
	"github.com/writegc/writegc/lab/offheapprobe"
)

// childEnv marks a process this command started (tests re-exec the test
// binary and tell the child apart by it).
const childEnv = "WRITEGC_OFFHEAPPROBE_CHILD"

// maxRecordLine bounds one JSON line read from a child.
const maxRecordLine = 1 << 20

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the parsed flags.
type options struct {
	cfg   offheapprobe.Config
	procs int
	out   string
	args  []string // the flags to pass on to a child
}

func parse(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("offheapprobe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.cfg.Rounds, "rounds", offheapprobe.DefaultRounds, "rounds; each fills one fresh memtable of each kind, the order alternating")
	fs.IntVar(&o.cfg.Keys, "keys", offheapprobe.DefaultKeys, "distinct keys per fill")
	value := fs.String("value", "10KB", "value size (10, 100B, 10KB, 1MiB)")
	huge := fs.String("huge", "advise", "offheap huge page policy: advise (MADV_HUGEPAGE, the default), system (no advice) or never (MADV_NOHUGEPAGE)")
	prefault := fs.Bool("prefault", true, "pre-fault new offheap chunks (MADV_POPULATE_WRITE)")
	gc := fs.Bool("gc", true, "collect the heap before each fill")
	freeOS := fs.Bool("free-os", false, "return the heap's free memory to the kernel before each fill (debug.FreeOSMemory)")
	fs.IntVar(&o.procs, "procs", 0, "run the whole probe in this many fresh child processes, one after the other (0: in this process)")
	fs.IntVar(&o.cfg.Proc, "proc-index", 0, "the proc label of the records (set for children)")
	fs.StringVar(&o.out, "out", "", "write the JSON lines to this file (atomically) instead of standard output")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	v, err := workload.ParseSize(*value)
	if err != nil || v < 1 || v > 1<<31 {
		return o, fmt.Errorf("-value %q: want a size of at least 1 B", *value)
	}
	o.cfg.ValueSize = int(v)
	if o.cfg.HugePages, err = arena.ParseHugePagePolicy(*huge); err != nil {
		return o, fmt.Errorf("-huge: %w", err)
	}
	o.cfg.NoPrefault, o.cfg.NoGC, o.cfg.FreeOSMemory = !*prefault, !*gc, *freeOS
	if o.cfg.Rounds < 1 || o.cfg.Keys < 1 || o.procs < 0 || o.procs > 1000 {
		return o, errors.New("-rounds and -keys must be at least 1, -procs in [0, 1000]")
	}
	if err := o.cfg.Validate(); err != nil {
		return o, err
	}
	o.args = []string{"-rounds", strconv.Itoa(o.cfg.Rounds), "-keys", strconv.Itoa(o.cfg.Keys), "-value", strconv.Itoa(o.cfg.ValueSize),
		"-huge", *huge, "-prefault=" + strconv.FormatBool(*prefault), "-gc=" + strconv.FormatBool(*gc),
		"-free-os=" + strconv.FormatBool(*freeOS)}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "offheapprobe:", err)
		return 2
	}
	var stream io.Writer
	if o.out == "" {
		stream = stdout
	}
	var recs []offheapprobe.Record
	if o.procs == 0 {
		recs, err = runHere(o.cfg, stream)
	} else {
		recs, err = runChildren(o, stream, stderr)
	}
	if err == nil && o.out != "" {
		err = writeAtomic(o.out, func(w io.Writer) error { return writeLines(w, recs) })
	}
	if err != nil {
		fmt.Fprintln(stderr, "offheapprobe:", err)
		return 1
	}
	if os.Getenv(childEnv) != "" {
		return 0 // the parent writes the table of every child
	}
	if err := offheapprobe.WriteTable(stderr, offheapprobe.Summarize(recs)); err != nil {
		return 1
	}
	return 0
}

// runHere runs the probe in this process, streaming each record to stream
// (nil: none).
func runHere(cfg offheapprobe.Config, stream io.Writer) ([]offheapprobe.Record, error) {
	if stream != nil {
		enc := json.NewEncoder(stream)
		cfg.OnRecord = func(r offheapprobe.Record) error { return enc.Encode(r) }
	}
	return offheapprobe.Run(cfg)
}

// runChildren runs o.procs children in turn and gathers their records.
func runChildren(o options, stream, stderr io.Writer) ([]offheapprobe.Record, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var all []offheapprobe.Record
	for i := range o.procs {
		var out bytes.Buffer
		cmd := exec.Command(exe, append(o.args, "-proc-index", strconv.Itoa(i))...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		cmd.Stdout, cmd.Stderr = &out, stderr
		if err := cmd.Run(); err != nil {
			return all, fmt.Errorf("child %d: %w", i, err)
		}
		recs, err := readLines(&out)
		if err != nil {
			return all, fmt.Errorf("child %d: %w", i, err)
		}
		if stream != nil {
			if err := writeLines(stream, recs); err != nil {
				return all, err
			}
		}
		all = append(all, recs...)
	}
	return all, nil
}

// readLines decodes a child's JSON lines, each at most maxRecordLine bytes.
func readLines(r io.Reader) ([]offheapprobe.Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxRecordLine)
	var recs []offheapprobe.Record
	for sc.Scan() {
		var rec offheapprobe.Record
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, fmt.Errorf("record line %d: %w", len(recs)+1, err)
		}
		recs = append(recs, rec)
	}
	return recs, sc.Err()
}

func writeLines(w io.Writer, recs []offheapprobe.Record) error {
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes path through a temporary file in its folder: written,
// fsynced, closed, renamed over path, and the folder fsynced. On error the
// temporary file is removed and path is as it was.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if err = write(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
