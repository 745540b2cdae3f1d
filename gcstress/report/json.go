package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
)

// FormatJSON is the summary as JSON on the terminal (control characters
// escaped); SummaryFile is the results folder's summary.json (results.
// Compact: without the latency histograms, which stay in samples.jsonl).
const (
	FormatJSON  Name = "json"
	SummaryFile Name = "summary.json"
)

var jsonFormat = Format{Name: FormatJSON, Terminal: writeJSON}

var summaryFormat = Format{Name: SummaryFile, When: AtRun, Owns: is(string(SummaryFile)),
	Files: one(string(SummaryFile), func(w io.Writer, sum *results.Summary, _ []string) error {
		b, err := marshalSummary(sum)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})}

func writeJSON(w io.Writer, sum *results.Summary) error {
	b, err := marshalSummary(sum)
	if err != nil {
		return err
	}
	_, err = w.Write(append(escape.JSON(b), '\n'))
	return err
}

func marshalSummary(sum *results.Summary) ([]byte, error) {
	b, err := json.MarshalIndent(results.Compact(sum), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gcstress: summary: %w", err)
	}
	return b, nil
}
