package lint

import (
	"regexp"
	"strings"
)

// Invocation is one command line a document shows: the command (gcstress or
// benchgate), its subcommand ("" for none) and the flags it passes.
type Invocation struct {
	Line    int
	Command string
	Sub     string
	Flags   []string
}

// commandAliases maps the names a document may run a command by to the
// command whose flags they take: writegc's own mains and the programs built on
// gcstress/cli.Main.
var commandAliases = map[string]string{
	"gcstress":       "gcstress",
	"benchgate":      "benchgate",
	"mystore":        "gcstress",
	"gcstress-peers": "gcstress",
}

// Subcommands lists each command's subcommands, whose flags are their own.
var Subcommands = map[string][]string{
	"gcstress":  {"explain", "report", "compare", "all", "matrix", "failure", "stall", "collapse", "capacity", "frontier"},
	"benchgate": {"compare", "run", "calibrate", "record", "history"},
}

var (
	commandToken = regexp.MustCompile(`(?:^|[\s/` + "`" + `(])(gcstress-peers|gcstress|benchgate|mystore)(?:@\S*)?(?:$|\s)`)
	flagToken    = regexp.MustCompile(`^--?([A-Za-z][A-Za-z0-9-]*)(?:=.*)?$`)
	codeSpan     = regexp.MustCompile("`([^`]+)`")
	helpFlag     = regexp.MustCompile(`(?m)^\s+-([A-Za-z][A-Za-z0-9-]*)`)
	usageFlag    = regexp.MustCompile(`\[-([A-Za-z][A-Za-z0-9-]*)`)
	// packageTool matches a go command that takes the name as a package
	// (go test ./gcstress -run X), not as a program to run.
	packageTool = regexp.MustCompile(`\bgo (test|vet|list|build|doc)\b`)
)

// DocInvocations finds the command lines in a Markdown document: each line of
// a fenced block, and each inline code span, that runs gcstress, benchgate or
// a program built on gcstress's command.
func DocInvocations(markdown string) []Invocation {
	var out []Invocation
	fenced := false
	for i, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		spans := []string{line}
		if !fenced {
			spans = nil
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				spans = append(spans, m[1])
			}
		}
		for _, s := range spans {
			if inv, ok := parseInvocation(s); ok {
				inv.Line = i + 1
				out = append(out, inv)
			}
		}
	}
	return out
}

func parseInvocation(s string) (Invocation, bool) {
	loc := commandToken.FindStringSubmatchIndex(s)
	if loc == nil || packageTool.MatchString(s[:loc[2]]) {
		return Invocation{}, false
	}
	inv := Invocation{Command: commandAliases[s[loc[2]:loc[3]]]}
	words := strings.Fields(s[loc[1]:])
	for k, w := range words {
		if strings.HasPrefix(w, "#") || w == "|" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") {
			break
		}
		if k == 0 && isSub(inv.Command, w) {
			inv.Sub = w
			continue
		}
		if m := flagToken.FindStringSubmatch(strings.Trim(w, "'\"[]")); m != nil {
			inv.Flags = append(inv.Flags, m[1])
		}
	}
	return inv, true
}

func isSub(cmd, w string) bool {
	for _, s := range Subcommands[cmd] {
		if s == w {
			return true
		}
	}
	return false
}

// HelpFlags is the set of flag names a command's -h output lists, from its
// flag lines ("  -name ...") and its usage lines ("[-name ...]").
func HelpFlags(help string) map[string]bool {
	set := map[string]bool{"h": true, "help": true}
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		set[m[1]] = true
	}
	for _, m := range usageFlag.FindAllStringSubmatch(help, -1) {
		set[m[1]] = true
	}
	return set
}
