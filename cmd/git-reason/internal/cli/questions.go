package cli

import (
	"fmt"
	"io"
	"strings"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// printQuestions says, per advisor, how much material its question carries
// and what was cut, left out or never sent.
func printQuestions(w io.Writer, qs []ops.AdvisorQuestion) {
	for _, q := range qs {
		if len(q.Material) == 0 {
			continue // summaries only: nothing to say
		}
		fmt.Fprintf(w, "%s: question of %d bytes (budget %d)", q.Advisor, q.Bytes, q.Budget)
		if q.Redactions > 0 {
			fmt.Fprintf(w, ", %s redacted", record.Plural(q.Redactions, "secret"))
		}
		fmt.Fprintln(w)
		for _, m := range q.Material {
			fmt.Fprintf(w, "  %d. %s: %s\n", m.Evidence, materialName(m), materialFate(m))
		}
	}
}

func materialName(m record.Material) string {
	s := m.Kind + " " + record.Printable(m.Ref)
	if m.Lines != "" {
		s += ":" + m.Lines
	}
	return s
}

func materialFate(m record.Material) string {
	var parts []string
	switch {
	case m.Omitted != "" && m.Of == 0:
		parts = append(parts, "not sent: "+record.Printable(m.Omitted))
	case m.Omitted != "":
		parts = append(parts, fmt.Sprintf("left out (%d bytes): %s", m.Of, m.Omitted))
	case m.Truncated:
		parts = append(parts, fmt.Sprintf("cut: %d of %d bytes sent", m.Bytes, m.Of))
	default:
		parts = append(parts, fmt.Sprintf("sent whole (%d bytes)", m.Bytes))
	}
	if m.Revision == "worktree" {
		parts = append(parts, "from the work tree (not committed)")
	}
	if m.Redactions > 0 {
		parts = append(parts, record.Plural(m.Redactions, "secret")+" redacted")
	}
	return strings.Join(parts, "; ")
}
