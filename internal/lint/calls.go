package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
)

// commandPackages are the non-main packages that may parse flags or exit:
// commands as importable packages (a Main), testkit's golden -update flag
// (imported by tests only), gchealth, whose Exit a service asks for, and
// gcbench, which reads the testing package's -test.benchtime (imported by
// tests only) to tell a benchmark's final round.
var commandPackages = map[string]bool{
	"gcstress/cli":      true,
	"internal/testkit":  true,
	"gchealth":          true,
	"gcmetrics/gcbench": true,
}

// CheckLibraries reports every library (a non-main package that is not a
// command package) that imports "flag" or calls os.Exit.
func CheckLibraries(mod string, pkgs []Package) ([]Finding, error) {
	var found []Finding
	for _, p := range pkgs {
		rel, ok := relative(mod, p.ImportPath)
		if !ok || p.Name == "main" || commandPackages[rel] {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := checkLibraryFile(filepath.Join(p.Dir, name))
			if err != nil {
				return nil, err
			}
			for _, what := range f {
				found = append(found, Finding{rel + "/" + name, what})
			}
		}
	}
	return found, nil
}

func checkLibraryFile(path string) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	osName := ""
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch p {
		case "flag":
			found = append(found, "a library imports flag (commands parse flags; libraries take Options)")
		case "os":
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return found, nil
	}
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Exit" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName {
			found = append(found, fmt.Sprintf("line %d: a library calls os.Exit (return an error; commands exit)", fset.Position(sel.Pos()).Line))
		}
		return true
	})
	return found, nil
}
