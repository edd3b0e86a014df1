package prestart

import (
	"os"
	"slices"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore/git"
)

// need is what a verb runs first: discovery, or discovery and settings.
type need int

const (
	discovery need = iota + 1
	discoveryAndSettings
)

// verbs are the verbs that open a repository and what they read first
// (the network verbs run in git-reason--net: none of them is here).
var verbs = map[string]need{
	"assess":   discoveryAndSettings,
	"plan":     discoveryAndSettings,
	"disagree": discoveryAndSettings,
	"resolve":  discoveryAndSettings,
	"conclude": discoveryAndSettings,
	"validate": discoveryAndSettings,
	"attempt":  discoveryAndSettings,
	"close":    discoveryAndSettings,
	"reopen":   discoveryAndSettings,
	"withdraw": discoveryAndSettings,
	"status":   discoveryAndSettings,
	"log":      discoveryAndSettings,
	"tasks":    discoveryAndSettings,
	"handover": discoveryAndSettings,
	"verify":   discoveryAndSettings,
	"advisors": discoveryAndSettings,
	"doctor":   discoveryAndSettings,
	"show":     discovery,
	"search":   discovery,
	"context":  discovery,
}

func init() { Start(os.Args) }

// Start starts what the command line args (args[0] is the program) will
// run first. Only a verb named first, with no global flag before it and
// no request for help, starts anything.
func Start(args []string) {
	if len(args) < 2 || slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" }) {
		return
	}
	n := verbs[args[1]]
	if n == 0 {
		return
	}
	d := git.Early(git.DiscoverCmd("."))
	if n == discoveryAndSettings {
		d.Then(func(out []byte, err error) (git.Cmd, bool) {
			found, ok := git.Discovered(out, err)
			return settings.ListCmd(found.GitDir), ok
		})
	}
}
