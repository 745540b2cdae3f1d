// Package changepoint finds the commits where a benchmark series changed
// level: E-divisive means over a series in commit order, with a
// deterministic Welch's t-test for significance.
//
// # Algorithm
//
// A series is one value per commit (the median of the commit's sample), in
// commit order. Detect works in these steps:
//
//  0. Outliers. A point farther than 6 noise σ (see below) from the median
//     of the 2·MinSegment−1 points around it is left out of the analysis,
//     as if not measured. A run of fewer than MinSegment points cannot hold
//     the majority of that window, so a one- or two-commit spike or dip is
//     left out while a level held for MinSegment commits is kept. An
//     outlier inside a segment therefore neither inflates the segment's
//     variance (which hid a level shift a few commits later) nor becomes a
//     change point, and one just before or after a shift does not move it:
//     a change point is always placed at the first point of the new level
//     that was kept. Before, After, First and Last are medians of all the
//     points, outliers included.
//
//  1. Candidates. The series is cut into overlapping windows of
//     Options.Window points (each starting half a window after the last, the
//     final one ending at the last point). In each window, E-divisive means
//     (Matteson and James, 2014, with exponent 1) chooses the split that
//     maximises the energy statistic
//
//     Q(τ) = m·k/(m+k) · (2/(m·k)·Σ|x_i−y_j| − 1/C(m,2)·Σ|x_i−x_j| − 1/C(k,2)·Σ|y_i−y_j|)
//
//     over the m points before τ and the k points from τ on, both at least
//     Options.MinSegment long. The split is kept when Welch's t-test between
//     its two sides gives p < Options.P, and the search recurses into each
//     side. The three sums are computed for every τ of a segment in O(n²)
//     time and O(n) memory from running row sums, so a window costs O(W²)
//     per level of recursion, never the O(n³) of evaluating each split
//     afresh.
//
//  2. Deduplication. Overlapping windows find the same shift more than once,
//     a point or two apart. Candidates closer than MinSegment are reduced to
//     the one whose local t statistic (half a window either side) is largest.
//
//  3. Elimination. Each remaining candidate is tested against its
//     neighbours: Welch's t-test between the points since the previous
//     change point and the points up to the next one, and the relative
//     change of the medians of those two segments. The weakest candidate
//     (largest p-value) failing p < P, |relative change| >= MinMagnitude or
//     the minimum segment length is dropped, and the rest are tested again,
//     until every one passes. This is the step Apache Otava (formerly Hunter)
//     uses in place of the permutation test of the original method: the
//     result depends on the data only, never on a random seed.
//
//  4. Refinement. Each change point moves to the split of the segment
//     between its neighbours (within half a window) that best separates two
//     means, m·k/(m+k)·(mean_left−mean_right)²: the most likely place of a
//     single shift under normal noise, which the energy statistic locates
//     less precisely. A best split at the edge of that search (short of the
//     segment's own ends) is no local maximum: the segment holds more than
//     one shift, and the point stays where it was. Elimination then runs
//     once more on the moved points.
//
// Every t-test grants each side at least the noise variance of the whole
// series, estimated robustly from the successive differences
// (median |x[i]−x[i−1]| / 0.954 is σ for normal noise; a level shift moves
// one difference only). Without that floor, three points at the end of a
// series that happen to lie close together look far more certain than the
// series' noise allows, and a flat series gets false change points at its
// ends; with it, and Welch's degrees of freedom, a short segment must
// differ by several σ. A side whose variance is raised to the floor counts
// the floor's degrees of freedom, about 0.37·(n−1) for a median-based
// estimate over n points, not its own.
//
// # False alarms across a report
//
// P is a per-series level: a report over m pure-noise series at P = 0.001
// raised about m·0.004 false change points (20-point series), so that
// 10,000 series gave dozens and a gate on them failed on noise. DetectAll,
// which benchgate history uses for all the series of one report, holds the
// false-discovery rate (FDR) across the series at P by the
// Benjamini-Hochberg step-up procedure: each series' smallest change-point
// p-value is its p-value; with these sorted, p(1) <= ... <= p(m), the
// cutoff is k·P/m for the largest k with p(k) < k·P/m (P/m when there is
// none), and each series with change points is analysed again with the
// cutoff as the level of its elimination (candidates are still found at
// P). Result.Level is the cutoff. With one series it is Detect.
//
// Why FDR and not Bonferroni or Holm: under pure noise (no series
// changed) the FDR is the family-wise error rate, so a report of noise
// fails with probability about P whatever m is; when a commit truly moves
// many series, Benjamini-Hochberg's cutoff rises with the number found,
// where Bonferroni's P/m and Holm's stay near P/m and miss the smaller
// shifts among them. A false change point beside many true ones is the
// cheaper error in a benchmark report. The price is latency in large
// reports: a level of P/m needs more commits after a small shift.
//
// The significance test is analytic (Welch's t through the Student t
// distribution), so its p-values resolve levels far below P/m (10^-7 for
// 10,000 series and beyond); a permutation test with B permutations could
// not go below 1/(B+1). The p-values are those of a split chosen from many,
// so they are somewhat optimistic: over 20 runs of 10,000 pure-noise
// series × 20 points, one run reports a change point (a series whose points
// happen to fall into two tight groups).
//
// # Defaults and why
//
//   - Window 50: long enough that a level needs to hold for a few dozen
//     commits to be a level (the t-test then has the power to find a 2 to 5%
//     shift under 1 to 2% noise), short enough that two shifts fifty commits
//     apart are found separately and the O(W²) cost stays small.
//   - P 0.001: the elimination tests every candidate of every window, and a
//     split chosen as the best of about fifty looks more significant than a
//     split fixed in advance. A strict level keeps a flat series of a few
//     hundred points free of false change points.
//   - MinSegment 3: a change point needs three points on each side. One or
//     two outlying commits (a noisy runner, a spike) can never form a
//     segment of their own, so they are never a change point. The price is
//     latency: a shift is reported once enough commits after it are
//     measured for the t-test to be sure. Under 2% noise, a 20% step is
//     found (in 9 of 10 synthetic series) 4 commits after it, a 10% step 5
//     to 6 commits after, a 5% step 7 to 10 commits after.
//   - MinMagnitude 0.01: a change of the medians smaller than 1% is below
//     what a benchmark on a shared machine can attribute to a commit, even
//     when a long history makes it statistically significant.
//
// A slow creep has no single step: the energy statistic still splits it
// where the halves differ most, and each split whose sides differ by more
// than MinMagnitude stays, so a creep is reported as one or more change
// points of the same direction. Drift compares the first and last segments
// for a summary over the whole series.
//
// # Invariants and limits
//
// Detect and DetectAll are pure functions of their inputs: the same series
// and options give the same change points, in index order; no random seed.
// The package imports nothing of this module (it has its own Direction). It keeps no state and may be
// called from any number of goroutines at once. Values must be finite; a
// series is at most MaxPoints long and Window at most MaxWindow, both
// checked before anything is allocated.
package changepoint
