package gcstress

import (
	"slices"
	"strings"

	"github.com/writegc/writegc/gcstress/internal/runner"
	"github.com/writegc/writegc/gcstress/report"
)

// The results folder (-out) holds one run. An existing folder that is not
// empty is refused, so a second run can neither append its samples to the
// first's samples.jsonl nor overwrite its summary. -replace-out first
// removes what an earlier run's manifest (package gcstress/internal/runner) lists and is still
// as that run wrote it, and nothing else: a folder with files but no
// manifest is refused (ErrUsage), and so is one where something the run
// would write (a result file, a chart, a scenario folder) would land on a
// file the manifest does not account for. Without -out, each run gets a
// new folder under DefaultOutParent.

// The results folder's writer (atomic files, the manifest, -replace-out's
// clearing) is package gcstress/internal/runner.
type (
	outFiles       = runner.Files
	createTempFunc = runner.CreateTempFunc
)

// ManifestFile is the name of the manifest in a results folder.
const ManifestFile = runner.ManifestFile

func newOutFiles(dir string, create createTempFunc) *outFiles { return runner.New(dir, create) }

func openOutFiles(dir string, create createTempFunc) (*outFiles, error) {
	return runner.Open(dir, create)
}

// DefaultOutParent is where a run with no Config.Out gets its folder:
// DefaultOutParent/<UTC start time>-<short id> (for example
// gcstress-out/2026-12-01T110503Z-ab12), relative to the working
// directory. It is a scratch folder, not a place for committed results:
// writegc's .gitignore lists it, and a module that runs gcstress should
// list it in its own. Config.Out (-out) names any other folder exactly.
const DefaultOutParent = "gcstress-out"

// runFiles are the files a run writes at the top of its folder besides
// those of the report formats (report.Owns: summary.json, the reports,
// the charts).
var runFiles = []string{samplesFile, ManifestFile}

// runNames returns whether a run of cfg may write the entry name at the
// top of its folder: a result file, a chart, or a scenario's folder.
func runNames(cfg Config) func(name string) bool {
	dirs := map[string]bool{}
	for _, s := range Expand(cfg) {
		dirs[s.DirName()] = true
	}
	capa, front := cfg.wants(SetCapacity), cfg.wants(SetFrontier)
	return func(name string) bool {
		return slices.Contains(runFiles, name) || report.Owns(name) || dirs[name] || (capa && strings.HasPrefix(name, SetCapacity+"-")) ||
			(front && strings.HasPrefix(name, SetFrontier+"-"))
	}
}
