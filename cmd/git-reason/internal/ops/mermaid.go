package ops

import (
	"fmt"
	"strings"

	"git-reason/record"
)

// mermaidLabelMax is how many characters of a record's summary a node
// shows; the record itself is one click away in the text above it.
const mermaidLabelMax = 60

// Mermaid renders a record graph as a Mermaid flowchart (top to bottom,
// one node per record, styled by kind and state) that a forge renders in
// a ```mermaid block. Node names are n1, n2, ... in graph order, never
// record text; every label is quoted and spelled with Mermaid's entity
// codes for anything but letters, digits and plain punctuation, so a
// record cannot end a label, inject markup or a link, or break the chart.
func Mermaid(g record.Graph) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	names := map[string]string{}
	used := map[string]bool{}
	for i, n := range g.Nodes {
		name := fmt.Sprintf("n%d", i+1)
		names[n.ID] = name
		label := string(n.Kind) + ": " + n.Label
		if n.Task != "" && n.State == "reused" {
			label = "task " + n.Task + ": standing conclusion"
		}
		open, end := "[", "]"
		switch n.Kind {
		case record.KindDisagreement:
			open, end = "{{", "}}"
		case record.KindValidation:
			open, end = "([", "])"
		}
		fmt.Fprintf(&b, "  %s%s\"%s\"%s\n", name, open, MermaidText(label, mermaidLabelMax), end)
	}
	for _, e := range g.Edges {
		from, to := names[e.From], names[e.To]
		if from == "" || to == "" {
			continue
		}
		arrow := "-->"
		if e.Label == "reuses" {
			arrow = "-.->"
		}
		if e.Label != "" {
			fmt.Fprintf(&b, "  %s %s|\"%s\"| %s\n", from, arrow, MermaidText(e.Label, 30), to)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", from, arrow, to)
		}
	}
	for i, n := range g.Nodes {
		class := string(n.Kind)
		if n.State != "" {
			class = "s_" + n.State
		}
		if isWord(class) {
			fmt.Fprintf(&b, "  class n%d %s\n", i+1, class)
			used[class] = true
		}
	}
	for _, c := range mermaidClasses {
		if used[c[0]] {
			fmt.Fprintf(&b, "  classDef %s %s\n", c[0], c[1])
		}
	}
	return b.String()
}

// mermaidClasses are the styles of the kinds and states, defined only when
// used so that the chart stays short.
var mermaidClasses = [][2]string{
	{"assessment", "fill:#eef3fb,stroke:#4a6fa5"},
	{"plan", "fill:#f4f4f4,stroke:#777"},
	{"consultation", "fill:#f3eefb,stroke:#7a5aa5"},
	{"disagreement", "fill:#fff4e0,stroke:#b7791f"},
	{"resolution", "fill:#fff4e0,stroke:#b7791f"},
	{"conclusion", "fill:#e9f7ef,stroke:#2f855a"},
	{"validation", "fill:#e9f7ef,stroke:#2f855a"},
	{"attempt", "fill:#f4f4f4,stroke:#777"},
	{"s_open", "fill:#fde8e8,stroke:#c53030,stroke-width:2px"},
	{"s_pass", "fill:#c6f6d5,stroke:#2f855a"},
	{"s_fail", "fill:#fde8e8,stroke:#c53030"},
	{"s_failed", "fill:#fde8e8,stroke:#c53030"},
	{"s_claim", "fill:#fefcbf,stroke:#b7791f"},
	{"s_reused", "fill:#eef3fb,stroke:#4a6fa5,stroke-dasharray:4 3"},
}

func isWord(s string) bool {
	for _, c := range mermaidClasses {
		if c[0] == s {
			return true
		}
	}
	return false
}

// MermaidText is s as the text of a quoted Mermaid label: on one line,
// cut to max characters, and every character other than ASCII letters,
// digits, space and . , : ; - _ / ' ? = + written as an entity code
// (#35; for #; the slashes of "://" too), which Mermaid shows as the character and never reads as
// syntax, markup or a link.
func MermaidText(s string, max int) string {
	s = record.Printable(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		switch {
		case r == '/' && (prev == ':' || prev == '/'):
			// "://" stays no address anyone could take for a link.
			fmt.Fprintf(&b, "#%d;", r)
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune(" .,:;-_/'?=+", r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
		prev = r
	}
	return b.String()
}
