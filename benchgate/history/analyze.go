package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate"
	"github.com/writegc/writegc/benchgate/changepoint"
)

// Analysis is one series with its change points.
type Analysis struct {
	Series
	Result *changepoint.Result
}

// Analyze runs change-point detection over the series (one value per
// point: its median), in the order given, as one family: the false-discovery
// rate across all of them is held at o.P (changepoint.DetectAll), so that a
// report over many series raises no more false alarms than one over a few.
// Errors wrap changepoint's and name the series.
func Analyze(series []Series, o changepoint.Options) ([]Analysis, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cs := make([]changepoint.Series, len(series))
	for i, s := range series {
		cs[i] = changepoint.Series{Direction: direction(s.Direction), Points: make([]changepoint.Point, len(s.Points))}
		for j, p := range s.Points {
			cs[i].Points[j] = changepoint.Point{Commit: p.Commit, Value: p.Median}
		}
	}
	res, err := changepoint.DetectAll(cs, o)
	if err != nil {
		var se *changepoint.SeriesError
		if errors.As(err, &se) && se.Index < len(series) {
			s := series[se.Index]
			return nil, fmt.Errorf("%s %s (%s): %w", s.Benchmark, s.Unit, s.Machine, se.Err)
		}
		return nil, err
	}
	out := make([]Analysis, len(series))
	for i, s := range series {
		out[i] = Analysis{Series: s, Result: res[i]}
	}
	return out, nil
}

// direction maps a unit's direction onto changepoint's own.
func direction(d benchgate.Direction) changepoint.Direction {
	switch d {
	case benchgate.LowerIsBetter:
		return changepoint.LowerIsBetter
	case benchgate.HigherIsBetter:
		return changepoint.HigherIsBetter
	}
	return changepoint.DirUnknown
}

// LatestRegressions returns the regression change points among the latest
// n points of the series (index >= len(Points)-n); n <= 0 gives none.
func (a *Analysis) LatestRegressions(n int) []changepoint.ChangePoint {
	var out []changepoint.ChangePoint
	if n <= 0 {
		return nil
	}
	for _, cp := range a.Result.ChangePoints {
		if cp.Direction == changepoint.Regression && cp.Index >= len(a.Points)-n {
			out = append(out, cp)
		}
	}
	return out
}

// ErrNoCommit: git does not know the revision.
var ErrNoCommit = errors.New("no such commit")

// GitCommit resolves rev in the git repository at dir to its full hash and
// committer time. It fails (ErrNoCommit, or the error running git) when dir
// is not a repository, git is missing or rev is unknown.
func GitCommit(ctx context.Context, dir, rev string) (string, time.Time, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || len(rev) > maxCommitBytes {
		return "", time.Time{}, fmt.Errorf("%w: %q", ErrNoCommit, rev)
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "show", "-s", "--format=%H%n%cI", rev+"^{commit}", "--")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git: %v: %s", ErrNoCommit, rev, err, strings.TrimSpace(stderr.String()))
	}
	sha, when, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(when))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git gave time %q", ErrNoCommit, rev, when)
	}
	return sha, t, nil
}
