package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/writegc/writegc/benchgate/changepoint"
	"github.com/writegc/writegc/internal/childproc"
)

// Analysis is one series with its change points.
type Analysis struct {
	Series
	Result *changepoint.Result
}

// Analyze runs change-point detection over each series (one value per
// point: its median), in the order given. Errors wrap changepoint's.
func Analyze(series []Series, o changepoint.Options) ([]Analysis, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	out := make([]Analysis, 0, len(series))
	for _, s := range series {
		cs := changepoint.Series{Direction: s.Direction, Points: make([]changepoint.Point, len(s.Points))}
		for i, p := range s.Points {
			cs.Points[i] = changepoint.Point{Commit: p.Commit, Value: p.Median}
		}
		res, err := changepoint.Detect(cs, o)
		if err != nil {
			return nil, fmt.Errorf("%s %s (%s): %w", s.Benchmark, s.Unit, s.Machine, err)
		}
		out = append(out, Analysis{Series: s, Result: res})
	}
	return out, nil
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
	cmd := childproc.Command(ctx, "git", "-C", dir, "show", "-s", "--format=%H%n%cI", rev+"^{commit}", "--")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := childproc.Run(cmd); err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git: %v: %s", ErrNoCommit, rev, err, strings.TrimSpace(stderr.String()))
	}
	sha, when, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(when))
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %s: git gave time %q", ErrNoCommit, rev, when)
	}
	return sha, t, nil
}
