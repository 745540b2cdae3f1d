package gcstress

import "github.com/writegc/writegc/gcstress/results"

// gcstress's vocabulary, permanent aliases of package results's schema: a
// Scenario is what runs, a Sample one line of its stream, a Health its
// health (its class, why, and its windows' classes), a Result all of one
// scenario, a Summary the whole run. A program that registers an engine
// or reads Run's Summary needs no other package.
type (
	Scenario = results.Scenario
	Sample   = results.Sample
	Health   = results.Health
	Result   = results.Result
	Summary  = results.Summary
)

// Verdict is Health's name before v0.2.0, kept for that release only.
//
// Deprecated: use Health; "verdict" now names only a comparison's outcome.
type Verdict = results.Health
