package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/benchgate/history"
	"github.com/writegc/writegc/internal/inputfile"
)

const recordUsage = `usage:
  benchgate record -db DB [label flags] FILE...
  benchgate record -db DB -dir DIR [label flags]
  benchgate record -db DB -pair [label flags] BASE HEAD
Records benchmark files into the history database DB: a SQLite file path, a
postgres:// URL or libpq's key=value form (host=... dbname=...); a new file or
an empty database is created, one of another application is refused. A file's "commit:" and "commit-time:" (RFC 3339) lines label it;
the flags override them. A commit git knows is recorded by its full hash, and
its commit time is taken from git when neither the file nor -commit-time gives
one. -dir imports every DIR/<commit>.txt (a backfill), in commit-time order.
-pair BASE HEAD records the two sides of one benchmark run (benchgate run's
base.txt and head.txt) as one gate run (mode gate unless -mode says otherwise):
the head's points get the head/base ratio. Recording the same content twice stores it once.
A file that cannot be read or parsed is reported and the others are still
recorded (exit 2 when any failed).
`

const historyUsage = `usage:
  benchgate history -db DB [-window 50] [-p 0.001] [-min-magnitude 1%] [-min-segment 3]
                    [-format table|md|json] [-out DIR] [-fail-latest 10] [-fail-unstable]
                    [-machine FP] [-mode M] [-bench RE]
Prints the change points of every series (benchmark x unit x machine x mode) of
DB (opened read-only: a SQLite path, a postgres:// URL or libpq's key=value form), found by E-divisive means with Welch's t-test (see package
benchgate/changepoint). -out DIR also writes DIR/index.html, the trend page
(-html DIR: a deprecated synonym).
Series of different machines are analysed apart; so are those of different
modes: without -mode, a benchmark measured in two modes appears twice (the JSON
names benchmark, unit and machine only, so pass -mode for a JSON report).
Exit status: 1 when a regression change point lies within the latest
-fail-latest commits of its series (default 10: a shift is seen only once
enough commits after it are measured, under 2% noise 5 to 6 for a 10% step
and 7 to 10 for a 5% step; 0 never fails), 0 otherwise, 2 on bad usage or an
unreadable database. A series is unstable when, over its latest 10 points, its
noise exceeds 5% or its verdicts flip 3 times or more (package
benchgate/history, Assess): its regressions are reported and, without
-fail-unstable, do not fail.
`

// Limits of the record and history commands.
const (
	// maxBackfillFiles bounds the files -dir imports.
	maxBackfillFiles = 100_000
	// maxRecordFiles bounds the FILE arguments of record.
	maxRecordFiles = 10_000
	// maxBenchRE bounds -bench.
	maxBenchRE = 4096
)

// labelFlags are record's label flags.
type labelFlags struct {
	commit, commitTime, branch, machine, mode, source, runID string
}

func (l *labelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.commit, "commit", "", "commit of the results (default: the file's commit: line; with -dir, the file name)")
	fs.StringVar(&l.commitTime, "commit-time", "", "commit time, RFC 3339 (default: the file's commit-time: line, else git's)")
	fs.StringVar(&l.branch, "branch", "", "branch label (default: $GITHUB_REF_NAME or $CI_COMMIT_REF_NAME)")
	fs.StringVar(&l.machine, "machine", "", "machine fingerprint (default: the file's cpu, goos, goarch, goamd64, goversion, gomaxprocs); the file's env: line (benchgate run -base-env/-head-env) is added either way")
	fs.StringVar(&l.mode, "mode", string(history.ModeBench), "measurement mode: bench (a go test -bench run), gate (a benchgate run side) or your own")
	fs.StringVar(&l.source, "source", "", "source label (default: the file's path)")
	fs.StringVar(&l.runID, "run-id", "", "run id label (default: $GITHUB_RUN_ID or $CI_PIPELINE_ID)")
}

func (l *labelFlags) labels() (history.Labels, error) {
	out := history.Labels{Commit: l.commit, Branch: l.branch, Machine: l.machine, Mode: history.Mode(l.mode), Source: l.source, RunID: l.runID}
	if l.commitTime != "" {
		t, err := time.Parse(time.RFC3339, l.commitTime)
		if err != nil {
			return out, fmt.Errorf("-commit-time %q: want RFC 3339 (2006-01-02T15:04:05Z)", l.commitTime)
		}
		out.CommitTime = t
	}
	if out.Branch == "" {
		out.Branch = cmp.Or(os.Getenv("GITHUB_REF_NAME"), os.Getenv("CI_COMMIT_REF_NAME"))
	}
	if out.RunID == "" {
		out.RunID = cmp.Or(os.Getenv("GITHUB_RUN_ID"), os.Getenv("CI_PIPELINE_ID"))
	}
	return out, out.Validate()
}

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("record", stderr)
	fs.Usage = func() { io.WriteString(stderr, recordUsage); fs.PrintDefaults() }
	db := fs.String("db", "", "history database: a SQLite file path, a postgres:// URL or libpq's key=value form (required)")
	dir := fs.String("dir", "", "backfill: record every `DIR`/<commit>.txt")
	pair := fs.Bool("pair", false, "record BASE HEAD as the two sides of one gate run (with the head/base ratio)")
	lenient := fs.Bool("lenient", false, "record files with malformed lines (leaving those lines out) instead of failing")
	var lf labelFlags
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *db == "":
		return errors.New("record: -db is required")
	case *dir == "" && fs.NArg() == 0:
		return errors.New("record: want FILE arguments or -dir DIR")
	case *dir != "" && (fs.NArg() > 0 || lf.commit != ""):
		return errors.New("record: -dir takes no FILE arguments and no -commit (the file names are the commits)")
	case *pair && (*dir != "" || fs.NArg() != 2 || lf.commit != ""):
		return errors.New("record: -pair takes two files, BASE and HEAD (each naming its commit), and no -dir or -commit")
	case fs.NArg() > maxRecordFiles:
		return fmt.Errorf("record: %d files, more than the limit of %d", fs.NArg(), maxRecordFiles)
	}
	if *pair && !flagSet(fs, "mode") {
		lf.mode = string(history.ModeGate)
	}
	labels, err := lf.labels()
	if err != nil {
		return err
	}
	jobs := make([]recordJob, 0, fs.NArg())
	for _, f := range fs.Args() {
		jobs = append(jobs, recordJob{path: f, labels: labels})
	}
	if *dir != "" {
		if jobs, err = backfillJobs(ctx, *dir, labels); err != nil {
			return err
		}
	}
	st, err := history.Open(ctx, *db, history.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	if *pair {
		return recordPairFiles(ctx, st, jobs[0], jobs[1], history.PrepareOptions{Lenient: *lenient}, stdout)
	}
	if err := recordFiles(ctx, st, jobs, history.PrepareOptions{Lenient: *lenient}, stdout, stderr); err != nil {
		return err
	}
	return st.Close()
}

// recordFiles records each job: a file that cannot be read or prepared is
// named on stderr and the others are still recorded; a failure of the
// database stops at once (the rest would fail alike). Either is an error.
func recordFiles(ctx context.Context, st *history.DB, jobs []recordJob, o history.PrepareOptions, stdout, stderr io.Writer) error {
	failed := 0
	for i, j := range jobs {
		rec, err := prepareFile(ctx, j, o)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "benchgate: record: %s\n", history.Printable(withPath(j.path, err).Error()))
			continue
		}
		res, err := st.Record(ctx, rec)
		if err != nil {
			if left := len(jobs) - i - 1; left > 0 {
				return fmt.Errorf("%s: %w (%d more files not recorded)", j.path, err, left)
			}
			return fmt.Errorf("%s: %w", j.path, err)
		}
		if err := printRecorded(stdout, j.path, rec, res); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("record: %d of %d files could not be recorded (named above); the other %d were", failed, len(jobs), len(jobs)-failed)
	}
	return nil
}

// withPath names path in err unless it does already.
func withPath(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) (set bool) {
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// recordJob is one file to record with its labels.
type recordJob struct {
	path   string
	labels history.Labels
	// literal: the commit label is kept as given, not resolved by git
	// (a -dir file name that is not a commit hash, such as HEAD.txt).
	literal bool
}

// prepareFile reads and prepares one file (a regular file: a FIFO or a
// device is refused without blocking), its commit resolved by git.
func prepareFile(ctx context.Context, j recordJob, o history.PrepareOptions) (*history.Recording, error) {
	content, err := inputfile.ReadFile(j.path, history.MaxRecordBytes)
	if err != nil {
		return nil, err
	}
	rec, err := history.Prepare(content, j.path, j.labels, o)
	if err != nil {
		return nil, err
	}
	if !j.literal {
		resolveCommit(ctx, &rec.Labels)
	}
	return rec, nil
}

func printRecorded(stdout io.Writer, path string, rec *history.Recording, res history.Recorded) error {
	if res.Duplicate {
		_, err := fmt.Fprintf(stdout, "benchgate: %s: already recorded (record %d)\n", history.Printable(path), res.ID)
		return err
	}
	_, err := fmt.Fprintf(stdout, "benchgate: %s: recorded %s (%s), %d series (record %d)\n", history.Printable(path),
		history.Printable(benchgate.ShortCommit(cmp.Or(rec.Labels.Commit, "unknown commit"))), history.Printable(rec.Labels.Machine), res.Series, res.ID)
	return err
}

// recordPairFiles records base and head as one gate run.
func recordPairFiles(ctx context.Context, st *history.DB, base, head recordJob, o history.PrepareOptions, stdout io.Writer) error {
	br, err := prepareFile(ctx, base, o)
	if err != nil {
		return err
	}
	hr, err := prepareFile(ctx, head, o)
	if err != nil {
		return err
	}
	bres, hres, err := st.RecordPair(ctx, br, hr)
	if err != nil {
		return err
	}
	if err := printRecorded(stdout, base.path, br, bres); err != nil {
		return err
	}
	if err := printRecorded(stdout, head.path, hr, hres); err != nil {
		return err
	}
	return st.Close()
}

// backfillJobs lists DIR/<commit>.txt in commit-time order (git's; files
// whose commit git does not know follow, by name). Every *.txt entry is a
// job, a symbolic link included (a link to a regular file is recorded, any
// other entry fails and is reported when read). Only a name that is a
// commit hash (hexCommit) is looked up in git: HEAD.txt or main.txt label
// their records "HEAD" or "main", never the commit those name today.
func backfillJobs(ctx context.Context, dir string, labels history.Labels) ([]recordJob, error) {
	// Stat first: opening a FIFO named as the folder would block.
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("-dir %s: not a directory: %w", dir, inputfile.ErrNotRegular)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	ents, err := d.ReadDir(maxBackfillFiles + 1)
	d.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > maxBackfillFiles {
		return nil, fmt.Errorf("-dir %s: more than the limit of %d entries", dir, maxBackfillFiles)
	}
	type dated struct {
		job  recordJob
		when time.Time
	}
	var ds []dated
	for _, e := range ents {
		name := e.Name()
		if filepath.Ext(name) != ".txt" {
			continue
		}
		j := recordJob{path: filepath.Join(dir, name), labels: labels}
		j.labels.Commit = strings.TrimSuffix(name, ".txt")
		j.literal = !hexCommit(j.labels.Commit)
		var when time.Time
		if !j.literal {
			if _, t, err := gitCommit(ctx, ".", j.labels.Commit); err == nil {
				when = t
			}
		}
		ds = append(ds, dated{j, when})
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("-dir %s: no <commit>.txt files", dir)
	}
	slices.SortStableFunc(ds, func(a, b dated) int {
		switch {
		case a.when.IsZero() != b.when.IsZero():
			if a.when.IsZero() {
				return 1
			}
			return -1
		case !a.when.Equal(b.when):
			return a.when.Compare(b.when)
		}
		return strings.Compare(a.job.path, b.job.path)
	})
	jobs := make([]recordJob, len(ds))
	for i, d := range ds {
		jobs[i] = d.job
	}
	return jobs, nil
}

// historyFlags are the flags of history.
type historyFlags struct {
	db, format, html, machine, mode, bench, title string
	opts                                          changepoint.Options
	minMag                                        pctFlag
	failLatest                                    int
	failUnstable                                  bool
}

func (h *historyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.db, "db", "", "history database: a SQLite file path, a postgres:// URL or libpq's key=value form (required)")
	fs.IntVar(&h.opts.Window, "window", changepoint.DefaultWindow, "points E-divisive looks at at once")
	fs.Float64Var(&h.opts.P, "p", changepoint.DefaultP, "false-discovery rate across the report's series (Benjamini-Hochberg), in (0, 1); for one series, the level of Welch's t-test")
	h.minMag = pctFlag(changepoint.DefaultMinMagnitude)
	fs.Var(&h.minMag, "min-magnitude", "smallest relative change of the medians that counts (1% or 0.01; 0 for none)")
	fs.IntVar(&h.opts.MinSegment, "min-segment", changepoint.DefaultMinSegment, "fewest points on each side of a change point (at least 2)")
	fs.StringVar(&h.format, "format", "table", "output: table, md or json")
	fs.StringVar(&h.html, "out", "", "also write the trend page to `DIR`/index.html")
	synonym(fs, "html", "out")
	fs.IntVar(&h.failLatest, "fail-latest", 10, "exit 1 when a regression change point is within the latest `N` commits of its series (0: never)")
	fs.BoolVar(&h.failUnstable, "fail-unstable", false, "also exit 1 on a regression of an unstable series (by default reported only)")
	fs.StringVar(&h.machine, "machine", "", "only the series of this machine fingerprint")
	fs.StringVar(&h.mode, "mode", "", "only the series of this mode (bench, gate)")
	fs.StringVar(&h.bench, "bench", "", "only the benchmarks matching this `regexp`")
	fs.StringVar(&h.title, "title", "Benchmark history", "title of the trend page")
}

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	fs.Usage = func() { io.WriteString(stderr, historyUsage); fs.PrintDefaults() }
	var h historyFlags
	h.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	format, err := h.check(fs)
	if err != nil {
		return err
	}
	re, err := regexp.Compile(h.bench)
	if err != nil {
		return fmt.Errorf("-bench: %v", err)
	}
	st, err := history.Open(ctx, h.db, history.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	series, err := st.Load(ctx, history.Query{Machine: h.machine, Mode: history.Mode(h.mode)})
	if err != nil {
		return err
	}
	series = slices.DeleteFunc(series, func(s history.Series) bool { return !re.MatchString(s.Benchmark) })
	as, err := history.Analyze(series, h.opts)
	if err != nil {
		return err
	}
	if err := history.WriteReport(stdout, format, as); err != nil {
		return err
	}
	if h.html != "" {
		if err := history.WriteTrendPage(h.html, h.title, time.Now(), as); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	return latestRegressions(as, h.failLatest, h.failUnstable, stderr)
}

// check validates the flags and fills in the options.
func (h *historyFlags) check(fs *flag.FlagSet) (history.ReportFormat, error) {
	h.opts.MinMagnitude = float64(h.minMag)
	if h.minMag == 0 {
		h.opts.MinMagnitude = -1 // an explicit 0: no minimum
	}
	switch {
	case h.db == "":
		return "", errors.New("history: -db is required")
	case fs.NArg() != 0:
		return "", fmt.Errorf("history: unexpected argument %q (flags only)", fs.Arg(0))
	case h.failLatest < 0:
		return "", fmt.Errorf("-fail-latest %d: want 0 or more", h.failLatest)
	case len(h.bench) > maxBenchRE:
		return "", fmt.Errorf("-bench: %d bytes, more than the limit of %d", len(h.bench), maxBenchRE)
	}
	if err := h.opts.Validate(); err != nil {
		return "", fmt.Errorf("-window, -p or -min-segment: %w", err)
	}
	return history.ParseReportFormat(h.format)
}

// latestRegressions names each regression within the latest n commits of
// its series and returns errRegression when there is one, leaving out those
// of unstable series (named as such) unless failUnstable.
func latestRegressions(as []history.Analysis, n int, failUnstable bool, stderr io.Writer) error {
	var count, unstable int
	for i := range as {
		a := &as[i]
		for _, cp := range a.LatestRegressions(n) {
			what := "regression"
			if a.Stability.Unstable {
				unstable++
				what = "regression in an unstable series"
				if !failUnstable {
					what += " (not failed on: -fail-unstable)"
				}
			}
			if !a.Stability.Unstable || failUnstable {
				count++
			}
			fmt.Fprintf(stderr, "benchgate: %s: %s %s [%s]: %+.1f%% at %s (index %d of %d, p=%.2g)\n", what,
				history.Printable(a.Benchmark), history.Printable(a.Unit), history.Printable(a.Machine), cp.RelChange*100,
				history.Printable(benchgate.ShortCommit(cp.Commit)), cp.Index, len(a.Points), cp.P)
		}
	}
	if count > 0 {
		return fmt.Errorf("%w: %d change point(s) within the latest %d commits", errRegression, count, n)
	}
	if unstable > 0 {
		fmt.Fprintf(stderr, "benchgate: %d regression change point(s) within the latest %d commits, all in unstable series: not failed on\n", unstable, n)
	}
	return nil
}

// checkHistoryDB opens db as run -db will after the run (creating or
// migrating it, refusing a foreign one), so that a bad -db fails in seconds
// rather than after the whole run.
func checkHistoryDB(ctx context.Context, db string) error {
	st, err := history.Open(ctx, db, history.Options{})
	if err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	return st.Close()
}

// recordRun records both sides of a benchgate run into db (run -db), after
// the comparison: a failure to record is an error of its own (exit 2),
// except that a regression (exit 1) is still reported as one.
func recordRun(ctx context.Context, db string, res *benchgate.RunResult, gateErr error, stderr io.Writer) error {
	if db == "" || res == nil || res.BaseFile == "" || res.HeadFile == "" {
		return gateErr
	}
	err := recordPair(ctx, db, res, stderr)
	switch {
	case err == nil:
		return gateErr
	case errors.Is(gateErr, errRegression):
		fmt.Fprintf(stderr, "benchgate: -db: %v\n", err)
		return gateErr
	}
	return errors.Join(gateErr, fmt.Errorf("-db: %w", err))
}

func recordPair(ctx context.Context, db string, res *benchgate.RunResult, stderr io.Writer) error {
	lf := labelFlags{mode: string(history.ModeGate)}
	labels, err := lf.labels()
	if err != nil {
		return err
	}
	if labels.RunID == "" {
		labels.RunID = "run-" + time.Now().UTC().Format("20060102T150405Z")
	}
	var recs [2]*history.Recording
	for i, side := range []struct{ file, commit string }{{res.BaseFile, res.BaseCommit}, {res.HeadFile, res.HeadCommit}} {
		content, err := inputfile.ReadFile(side.file, history.MaxRecordBytes)
		if err != nil {
			return err
		}
		l := labels
		l.Commit = side.commit
		if recs[i], err = history.Prepare(content, side.file, l, history.PrepareOptions{Lenient: true}); err != nil {
			return err
		}
		resolveCommit(ctx, &recs[i].Labels)
	}
	st, err := history.Open(ctx, db, history.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	br, hr, err := st.RecordPair(ctx, recs[0], recs[1])
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "benchgate: recorded base (record %d) and head (record %d) into the history database\n", br.ID, hr.ID)
	return st.Close()
}
