package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLab holds the lab module (lab/, the studies) to the main module's
// library rule and to vet for darwin and windows: the main module's ./... stops
// at lab/go.mod, so TestRepository never sees it.
func TestLab(t *testing.T) {
	lab := filepath.Join(moduleRoot(t), "lab")
	pkgs, err := LoadPackages(lab, os.Environ(), "./...")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package in lab/")
	}
	t.Run("libraries", func(t *testing.T) {
		found, err := CheckLibraries(Module, pkgs)
		if err != nil {
			t.Fatal(err)
		}
		report(t, "library", found)
	})
	t.Run("darwin-vet", func(t *testing.T) {
		if err := GoCommand(lab, []string{"GOOS=darwin"}, "vet", "./..."); err != nil {
			t.Error(err)
		}
	})
	// vet type-checks every file for windows as a build would, without
	// linking the lab's five commands.
	t.Run("windows-vet", func(t *testing.T) {
		if err := GoCommand(lab, []string{"GOOS=windows"}, "vet", "./..."); err != nil {
			t.Error(err)
		}
	})
}
