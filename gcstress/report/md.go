package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/writegc/writegc/gcstress/internal/view"
	"github.com/writegc/writegc/gcstress/results"
	"github.com/writegc/writegc/internal/escape"
)

// MarkdownFile is the results folder's report.md.
const MarkdownFile Name = "report.md"

var markdownFormat = Format{Name: MarkdownFile, When: AtRun | AtRebuild, Owns: is(string(MarkdownFile)),
	Files: one(string(MarkdownFile), func(w io.Writer, sum *results.Summary, written []string) error {
		var charts []string
		for _, n := range written {
			if isChart(n) {
				charts = append(charts, n)
			}
		}
		return WriteMarkdown(w, sum, charts)
	})}

// WriteMarkdown writes report.md: the run's settings and machine, the
// conclusions (conclusion.go), the addendum table, the failure scenarios, the GC table, each scenario's
// settings and health reason, the profile accounts, the charts (file names
// relative to the report) and the thresholds. Every name, note and
// error that came from an engine, a child or the command line is
// Markdown-escaped (internal/escape): it shows as text, never as HTML, a
// heading, a link or a table cell of its own.
func WriteMarkdown(w io.Writer, sum *results.Summary, charts []string) error {
	md := escape.Markdown
	ew := &errWriter{w: w}
	writeMarkdownHeader(ew, sum)
	if p := openingParagraph(sum, md); p != "" {
		fmt.Fprintf(ew, "\n%s\n", p)
	}
	if cs := conclusions(sum, md); len(cs) > 0 {
		fmt.Fprintf(ew, "\n## Conclusions\n\n")
		for _, c := range cs {
			fmt.Fprintf(ew, "- %s\n", c)
		}
	}
	writeResultTables(ew, sum.Results, sum.Capacity, tableHeadings{
		addendum:   "\n## Random write throughput\n\nKey+value MB/s (MB = 10^6 B) and health, as the Hypertable addendum's table.\n\n",
		failure:    "\n## Failure, collapse and stall scenarios\n\nBackpressure off unless the name says stall.\n\n",
		gc:         "\n## GC per scenario\n\n",
		cost:       "\n## GC cost per entry, per Put and per GB written\n\n",
		repeats:    "\n## Repeated runs\n\nWith -count: median [least to greatest] per scenario; `gcstress compare` judges two such runs.\n\n",
		openLoop:   "\n## Open loop\n\nTarget vs achieved rate; service time vs latency from each Put's intended start.\n\n",
		capacity:   "\n## Capacity\n\nThe highest open-loop rate (key+value MB/s) at which the collector stays healthy.\n\n",
		notePrefix: "- ",
		envs:       "\n## Build environments\n\nEach scenario under each build environment (-build-envs), with the heap's shape beside it.\n\n",
		esc:        md,
		markdown:   true,
	})
	writeFrontier(ew, sum, "\n## Frontier: GOGC x GOMEMLIMIT\n\nGC CPU per GB against peak memory per setting.\n\n", md)
	writeMMUTable(ew, sum.Results, "\n## The collector over time: MMU and mark assists\n\n%s\n\n", md) // mmu.go
	writeNotes(ew, "\n## Notes\n\n", sum, md)
	writeMarkdownScenarios(ew, sum)
	writeMarkdownAccounts(ew, sum.Results, charts)
	fmt.Fprintf(ew, "\n## Health rules\n\n%s.\n\n%s\n", sum.Rules, sum.SpanNote)
	return ew.err
}

// writeMarkdownHeader writes the report's title, its headline (the line to
// act on) and its run lines: the command, commit, Go, machine, times and
// whether it was interrupted.
func writeMarkdownHeader(ew io.Writer, sum *results.Summary) {
	md := escape.Markdown
	fmt.Fprintf(ew, "# gcstress report\n\n")
	if h := headline(sum, md); h != "" {
		fmt.Fprintf(ew, "**%s**\n\n", h) // the line to act on first (headline.go)
	}
	fmt.Fprintf(ew, "- command: %s\n", escape.MarkdownCode(sum.Command))
	if sum.Commit != "" {
		fmt.Fprintf(ew, "- commit: %s\n", md(sum.Commit))
	}
	fmt.Fprintf(ew, "- Go: %s, GOEXPERIMENT %s, %s/%s\n", md(sum.GoVersion), md(sum.GOEXPERIMENT), md(sum.GOOS), md(sum.GOARCH))
	fmt.Fprintf(ew, "- machine: %s%s\n", view.MachineLine(sum, md), view.LoadLine(sum))
	if note := view.BusyNote(sum.Results); note != "" {
		fmt.Fprintf(ew, "- **%s**\n", md(note))
	}
	fmt.Fprintf(ew, "- started %s, finished %s (%.0f s)\n", sum.Started.Format("2006-01-02 15:04:05Z"),
		sum.Finished.Format("15:04:05Z"), sum.Finished.Sub(sum.Started).Seconds())
	if sum.Interrupted {
		fmt.Fprintf(ew, "- **interrupted**: this report covers the %d scenario(s) that ran\n", len(sum.Results))
	}
}

// writeMarkdownScenarios writes one line per scenario: its settings,
// class, reason and how it ended.
func writeMarkdownScenarios(ew io.Writer, sum *results.Summary) {
	md := escape.Markdown
	fmt.Fprintf(ew, "\n## Scenarios\n\n")
	for _, r := range sum.Results {
		fmt.Fprintf(ew, "- **%s** (%s): %s. %s", md(r.Scenario.RunLabel()), md(r.Scenario.Describe()), md(string(r.Verdict.Class)), md(r.Verdict.Why))
		if r.End != nil {
			fmt.Fprintf(ew, "; load stopped: %s", md(string(r.End.Reason)))
		}
		if r.Stopped != "" {
			fmt.Fprintf(ew, "; stopped by the parent: %s", md(string(r.Stopped)))
		}
		if r.Exit.Message != "" {
			fmt.Fprintf(ew, "; exit: %s", md(r.Exit.Message))
		}
		if r.Flight != "" {
			fmt.Fprintf(ew, "; flight recorder: %s", escape.MarkdownCode(rel(sum.Out, r.Flight)))
		}
		if r.Machine != (results.Machine{}) {
			fmt.Fprintf(ew, "; meanwhile other processes took %.2f cores and steal %.2f", r.Machine.OthersCores, r.Machine.StealCores)
		}
		fmt.Fprintf(ew, ".\n")
	}
}

// writeMarkdownAccounts writes the profile accounts (explain's Markdown,
// control characters escaped) and the PNG charts.
func writeMarkdownAccounts(ew io.Writer, rs []results.Result, charts []string) {
	var accounts []results.Result
	for _, r := range rs {
		if r.Account != "" {
			accounts = append(accounts, r)
		}
	}
	if len(accounts) > 0 {
		fmt.Fprintf(ew, "\n## Profile accounts\n\n")
		for _, r := range accounts {
			fmt.Fprintf(ew, "%s\n", escape.TerminalText(strings.TrimSpace(r.Account)))
			fmt.Fprintln(ew)
		}
	}
	if len(charts) > 0 {
		fmt.Fprintf(ew, "\n## Charts\n\n")
		for _, c := range charts {
			if strings.HasSuffix(c, ".png") {
				fmt.Fprintf(ew, "![%s](%s)\n\n", strings.TrimSuffix(c, ".png"), c)
			}
		}
	}
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}
