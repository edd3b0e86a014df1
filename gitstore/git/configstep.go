package git

import (
	"fmt"
	"regexp"
	"strings"
)

// configStep is a step of advice that sets git configuration, as the
// command line says it: "git config reason.sign false", up to a
// parenthesis, a semicolon or the end.
var configStep = regexp.MustCompile(`git config [^();]+`)

// PersonSets says each step of msg that sets git configuration as the
// person's, for the MCP tools, none of which sets configuration: "(git
// config reason.sign false)" becomes "(the person sets it: git config
// reason.sign false; no tool sets configuration)", the last step
// followed by "; no tool sets configuration". msg is unchanged when it
// names no such step.
func PersonSets(msg string) string {
	locs := configStep.FindAllStringIndex(msg, -1)
	var b strings.Builder
	last := 0
	for i, l := range locs {
		b.WriteString(msg[last:l[0]] + "the person sets it: " + msg[l[0]:l[1]])
		if i == len(locs)-1 {
			b.WriteString("; no tool sets configuration")
		}
		last = l[1]
	}
	return b.String() + msg[last:]
}

// ConfigAdvised is an error whose advice sets git configuration, said
// as the command line says it (Error); ToolMessage (record.ToolAdvised)
// says each such step as the person's (PersonSets).
type ConfigAdvised struct{ error }

func (e ConfigAdvised) Unwrap() error       { return e.error }
func (e ConfigAdvised) ToolMessage() string { return PersonSets(e.Error()) }

// ConfigErrorf is fmt.Errorf as a ConfigAdvised error.
func ConfigErrorf(format string, args ...any) error {
	return ConfigAdvised{fmt.Errorf(format, args...)}
}
