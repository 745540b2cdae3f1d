package results

// BuildEnv is one build environment of a run (-build-envs): its name, its
// K=V pairs in internal/buildenv's form ("" the current environment), and
// what the binary built in it reports (debug/buildinfo): its Go version
// and GOEXPERIMENT. A plain value.
type BuildEnv struct {
	Name         string `json:"name"`
	Env          string `json:"env"`
	GoVersion    string `json:"go_version,omitempty"`
	GOEXPERIMENT string `json:"goexperiment,omitempty"`
}

// Label is the environment as the reports name it: "classic
// (GOEXPERIMENT=nogreenteagc)", or the name alone for the current one.
func (e BuildEnv) Label() string {
	if e.Env == "" {
		return e.Name + " (current environment)"
	}
	return e.Name + " (" + e.Env + ")"
}
