package cli

import (
	"fmt"
	"io"

	"git-reason/record"
)

// findingsShown is how many findings of one task a text output prints:
// a fetched tree of 150,000 bad records must not print 150,000 lines.
const findingsShown = 5

// printFindings prints each task's first findings, each line after
// indent, then how many more the task has and the command whose --json
// lists them all (all: that command for a task).
func printFindings(w io.Writer, indent string, found []record.Finding, all func(task string) string) {
	shown, more := map[string]int{}, map[string]int{}
	var order []string
	for _, f := range found {
		if shown[f.Task] == findingsShown {
			if more[f.Task] == 0 {
				order = append(order, f.Task)
			}
			more[f.Task]++
			continue
		}
		shown[f.Task]++
		fmt.Fprintf(w, "%s%s\n", indent, f.String())
	}
	for _, t := range order {
		fmt.Fprintf(w, "%sand %s of task %s: %s lists them all\n",
			indent, record.Plural(more[t], "more finding"), record.Printable(t), record.Printable(all(t)))
	}
}

// verifyAll is the command listing every finding of a task.
func verifyAll(task string) string { return "git reason verify " + task + " --json" }

// syncAll is the command listing every finding of a sharing verb.
func syncAll(verb string) func(string) string {
	return func(string) string { return "git reason " + verb + " --json" }
}
