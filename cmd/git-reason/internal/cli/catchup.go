package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

// noCatchUp are the verbs that do not integrate what a plain git fetch
// brought before they answer: the hooks run inside a git operation that
// reasoning must never slow or block, and the rest read no reasoning or
// outlive one command.
var noCatchUp = map[string]bool{
	"remote": true, "hook": true, "hooks": true,
	"mcp": true, "serve": true, "web": true,
	"version": true, "completion": true, "__complete": true, "man": true,
	"schema": true, "tools": true, "demo": true, "help": true, "h": true,
}

// catchUp integrates, before the verb answers, the reasoning a plain git
// fetch brought (ops.Session.CatchUp), and says on stderr what it did or
// what went wrong, once. It never stops the verb.
func catchUp(c *cli.Context, sess *ops.Session) {
	args, _ := c.App.Metadata["args"].([]string)
	verb := verbNamed(args, c.App.Flags)
	if noCatchUp[verb] {
		return
	}
	sharing := verb == "pull" || verb == "push" || verb == "sync"
	for _, l := range sess.CatchUp(c.Context, !sharing).Lines {
		fmt.Fprintf(c.App.ErrWriter, "git reason: %s\n", l)
	}
}
