package cli

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

// noCatchUp are the verbs that do not integrate what a plain git fetch
// brought before they answer: the hooks run inside a git operation that
// reasoning must never slow or block, and the rest read no reasoning or
// outlive one command.
var noCatchUp = []string{
	"remote", "hook", "hooks", "mcp", "serve", "web", "version", "completion",
	"__complete", "man", "schema", "tools", "demo", "help", "h",
}

// catchUp integrates, before the verb answers, the reasoning a plain git
// fetch brought (ops.Session.CatchUp), and says on stderr what it did or
// what went wrong, once. It never stops the verb.
func catchUp(c *cli.Context, sess *ops.Session) {
	args, _ := c.App.Metadata["args"].([]string)
	verb := verbNamed(args, c.App.Flags)
	if slices.Contains(noCatchUp, verb) {
		return
	}
	sharing := verb == "pull" || verb == "push" || verb == "sync"
	for _, l := range sess.CatchUp(c.Context, !sharing).Lines {
		fmt.Fprintf(c.App.ErrWriter, "git reason: %s\n", l)
	}
}
