// Package network is the entry of git-reason--net: git-reason's command
// line with the network verbs (consult, serve, web, mcp) run in this
// process. It holds no logic; it exists outside internal/ only because
// git-reason--net is a sibling program (cmd/git-reason--net), and Go lets
// only cmd/git-reason's own tree import cmd/git-reason/internal.
package network

import (
	"io"

	"git-reason/cmd/git-reason/internal/cli"
	"git-reason/cmd/git-reason/internal/serving"
)

// Main runs the command line args as git-reason--net and returns its exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.MainNet(serving.Servers(), args, stdin, stdout, stderr)
}
