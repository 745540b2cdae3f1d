package gcstress

import "github.com/writegc/writegc/gcstress/results"

// gcstress's own vocabulary, defined by package gcstress/results (the
// schema of what a run writes): a Scenario is what runs, a Sample one line
// of its stream, a Verdict its health, a Result all of one scenario and a
// Summary the whole run. They are permanent aliases, so that a program
// registering an engine (RegisterEngine's constructor takes a Scenario) or
// reading Run's Summary needs only this package; everything else of the
// schema is named through package results.
type (
	Scenario = results.Scenario
	Sample   = results.Sample
	Verdict  = results.Verdict
	Result   = results.Result
	Summary  = results.Summary
)
