package lint

import "testing"

func TestCommentCommit(t *testing.T) {
	for line, want := range map[string]string{
		"// measured at 85a5c10 on the AMD VM":     "85a5c10",
		"// (apache/otava at 0db0fb5)":             "0db0fb5",
		"// a 0x7fffffff limit":                    "",
		"//\tcommit: 0123abcd":                     "",
		"// deadbeef is only letters":              "",
		"// 1234567 ops":                           "",
		"// sha256 of e3b0c44298fc1c149afbf4c8996": "e3b0c44298fc1c149afbf4c8996",
		"// the word facade0 is not hex-bounded":   "facade0",
	} {
		if got := commentCommit(line); got != want {
			t.Errorf("commentCommit(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestNoCommitInComments: no tracked Go file's comment cites a commit.
func TestNoCommitInComments(t *testing.T) {
	root := moduleRoot(t)
	files, err := TrackedFiles(root)
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	found, err := CheckCommentCommits(root, files)
	if err != nil {
		t.Fatal(err)
	}
	report(t, "comment", found)
}
