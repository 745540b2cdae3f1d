package benchgate

import (
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
)

// JSON report. WriteJSON writes a Report as one JSON object whose field
// names are a contract (CI steps and dashboards read them): the names below
// only ever gain siblings. Figures a row does not have (a side missing, an
// exact row's p, an MDE the rounds cannot reach) are null, never NaN or
// infinite numbers, which JSON cannot hold.

// JSONReport is the JSON form of a Report (see WriteJSON).
type JSONReport struct {
	// Status is "pass", "fail" (a regression, confirmed where a rerun
	// ran), "noisy" (a row too noisy to judge, none regressed) or "error"
	// (missing data): the exit status 0, 1, 3 or 2 of the command.
	Status    string   `json:"status"`
	Summary   string   `json:"summary"`
	Alpha     float64  `json:"alpha"`
	Power     float64  `json:"power"`
	Threshold float64  `json:"threshold_pct"` // the default threshold, in percent
	Rounds    int      `json:"rounds"`        // the rounds each side should hold; 0: not checked
	BaseFiles []string `json:"base_files"`
	HeadFiles []string `json:"head_files"`
	Info      []string `json:"info"`
	Notes     []string `json:"notes"`
	// ConfirmRerun: the regressed rows were judged by a confirming rerun
	// (their rows carry "confirmed").
	ConfirmRerun bool      `json:"confirm_rerun"`
	Rows         []JSONRow `json:"rows"`
	// Error is the command's error, for status "error" (the caller sets
	// it: a confirming rerun that failed, missing data).
	Error string `json:"error,omitempty"`
}

// JSONRow is the JSON form of a Row.
type JSONRow struct {
	Benchmark string `json:"benchmark"`
	Unit      string `json:"unit"`
	// Verdict is one of "unchanged", "within", "improved", "regressed",
	// "accepted", "not_gated", "new", "missing", "underpowered", "noisy",
	// "incomplete", "not_confirmed" (see Verdict.JSONName).
	Verdict string   `json:"verdict"`
	Base    *float64 `json:"base"`
	Head    *float64 `json:"head"`
	// Change is (head-base)/base in percent: the change of the median.
	Change *float64 `json:"change_pct"`
	P      *float64 `json:"p"`
	NBase  int      `json:"n_base"`
	NHead  int      `json:"n_head"`
	Exact  bool     `json:"exact"`
	// Noise is Row.Noise in percent; MDE Row.MDE in percent, null when
	// not measured or no change is detectable at these rounds; MDEAbs,
	// for a row gated by an absolute threshold, the MDE in the unit's
	// terms.
	Noise  *float64 `json:"noise_pct"`
	MDE    *float64 `json:"mde_pct"`
	MDEAbs *float64 `json:"mde_abs,omitempty"`
	// RoundsNeeded, for a noisy row: the rounds a side that would bring
	// its MDE under the threshold (0: more than MaxCount).
	RoundsNeeded *int `json:"rounds_needed,omitempty"`
	// Threshold is the row's threshold in percent (ThresholdAbs: in the
	// unit's terms), ThresholdFrom its source; absent for exact rows.
	Threshold     *float64 `json:"threshold_pct,omitempty"`
	ThresholdAbs  *float64 `json:"threshold_abs,omitempty"`
	ThresholdFrom string   `json:"threshold_from,omitempty"`
	// Confirmed, for a row that regressed in the first rounds when a
	// confirming rerun judged them: whether it regressed again.
	Confirmed *bool  `json:"confirmed,omitempty"`
	Note      string `json:"note,omitempty"`
}

// JSONName is the verdict's name in the JSON report: lower case, words
// joined by '_'.
func (v Verdict) JSONName() string {
	return [...]string{"unchanged", "within", "improved", "regressed", "accepted", "not_gated", "new", "missing",
		"underpowered", "noisy", "incomplete", "not_confirmed", "worse"}[v]
}

// finite returns &f to 6 significant digits (more than any benchmark
// resolves, and the same on every architecture), or nil when f is NaN or
// infinite.
func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return &f
}

// pct returns f in percent (see finite).
func pct(f float64) *float64 { return finite(f * 100) }

// JSON returns the report's JSON form.
func (r *Report) JSON() JSONReport {
	out := JSONReport{Status: strings.ToLower(r.status()), Summary: r.Summary(), Alpha: r.Options.Alpha, Power: r.Options.Power,
		Threshold: r.Options.Threshold * 100, Rounds: r.Options.Rounds, BaseFiles: nonNil(r.BaseFiles), HeadFiles: nonNil(r.HeadFiles),
		Info: nonNil(r.Info), Notes: nonNil(r.Notes), ConfirmRerun: r.Confirmed, Rows: make([]JSONRow, len(r.Rows))}
	for i := range r.Rows {
		out.Rows[i] = r.Rows[i].json()
	}
	return out
}

func (row *Row) json() JSONRow {
	j := JSONRow{Benchmark: row.Name, Unit: row.Unit, Verdict: row.Verdict.JSONName(), Base: finite(row.Base), Head: finite(row.Head),
		Change: pct(row.Delta), P: finite(row.P), NBase: row.NBase, NHead: row.NHead, Exact: row.Exact,
		Noise: pct(row.Noise), MDE: pct(row.MDE), ThresholdFrom: row.ThresholdFrom, Note: row.Note}
	if row.ThresholdAbs {
		j.MDEAbs, j.ThresholdAbs = finite(row.MDEAbs), finite(row.Threshold)
	} else if row.ThresholdFrom != "" {
		j.Threshold = pct(row.Threshold)
	}
	if row.Verdict == Noisy {
		j.RoundsNeeded = &row.RoundsNeeded
	}
	if row.Confirm != NotRerun {
		c := row.Confirm == Confirmed
		j.Confirmed = &c
	}
	return j
}

// nonNil returns s, or an empty slice for nil (an empty JSON array, not null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteJSON writes the report as indented JSON (see JSONReport).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
