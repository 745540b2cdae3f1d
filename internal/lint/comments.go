package lint

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// commitLike is a token that reads as an abbreviated or full git commit:
// 7 to 40 lowercase hex digits with at least one letter and one digit, not
// part of a longer word or a 0x literal.
var commitLike = regexp.MustCompile(`(?:^|[^0-9a-zA-Z_x])([0-9a-f]{7,40})(?:$|[^0-9a-zA-Z_])`)

// CheckCommentCommits reports every comment line in the tracked Go files
// (relative to root) that cites a commit: the history of a decision belongs
// in results/ READMEs and the CHANGELOG, not in code. Indented lines (a doc
// comment's example blocks) are examples, not citations.
func CheckCommentCommits(root string, files []string) ([]Finding, error) {
	var found []Finding
	fset := token.NewFileSet()
	for _, name := range files {
		if !strings.HasSuffix(name, ".go") || strings.Contains(name, "testdata/") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue // a file the build cannot parse is vet's finding, not this rule's
		}
		for _, g := range f.Comments {
			for _, c := range g.List {
				for i, line := range strings.Split(c.Text, "\n") {
					if hash := commentCommit(line); hash != "" {
						pos := fset.Position(c.Pos())
						found = append(found, Finding{name + ":" + strconv.Itoa(pos.Line+i), "comment cites commit " + hash + " (put it in a results/ README or the CHANGELOG)"})
					}
				}
			}
		}
	}
	return found, nil
}

// commentCommit returns the first commit-like token of one comment line, or "".
func commentCommit(line string) string {
	text := strings.TrimPrefix(strings.TrimPrefix(line, "//"), "/*")
	if strings.HasPrefix(text, "\t") || strings.HasPrefix(text, "    ") {
		return ""
	}
	for _, m := range commitLike.FindAllStringSubmatch(text, -1) {
		h := m[1]
		if strings.ContainsAny(h, "abcdef") && strings.ContainsAny(h, "0123456789") {
			return h
		}
	}
	return ""
}
