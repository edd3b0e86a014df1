package neutrality

import "fmt"

// Summary is a one-line account of the result for a person, meant for
// standard error: whether the repository is configured, how many files were
// scanned and how many violations were found.
func (r *Result) Summary() string {
	if !r.Configured {
		return fmt.Sprintf("neutrality is not configured (no %s): nothing checked", ConfigPath)
	}
	s := fmt.Sprintf("%d %s in %d %s", len(r.Violations), plural(len(r.Violations), "violation"),
		r.Files, plural(r.Files, "file"))
	if r.Allowed > 0 {
		s += fmt.Sprintf(", %d allowed", r.Allowed)
	}
	if n := len(r.Skipped); n > 0 {
		s += fmt.Sprintf(", %d %s not checked", n, plural(n, "file"))
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
