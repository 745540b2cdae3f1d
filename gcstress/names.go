package gcstress

import "github.com/writegc/writegc/gcstress/results"

// gcstress's vocabulary, permanent aliases of package results's schema: a
// Scenario is what runs, a Sample one line of its stream, a Verdict its
// health, a Result all of one scenario, a Summary the whole run. A program
// that registers an engine or reads Run's Summary needs no other package.
type (
	Scenario = results.Scenario
	Sample   = results.Sample
	Verdict  = results.Verdict
	Result   = results.Result
	Summary  = results.Summary
)
