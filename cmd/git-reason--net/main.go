// Command git-reason--net is git reason's network verbs: consult, serve,
// web and mcp. git-reason runs it in its own place for those verbs, with
// the same arguments; installed beside git-reason by README's install
// command, it is not meant to be run by hand (it is the same command line,
// so it would work).
//
// It is a program of its own so that git-reason links none of what only
// these verbs need (net/http, crypto/tls, html/template, the MCP SDK),
// whose initialisation every other verb would otherwise pay at start-up:
// measured, one binary puts git reason assess past its budget of 0.5x
// git-bug's comment add in CPU time (docs/PERFORMANCE.md, "Levers
// measured and not shipped").
package main

import (
	"os"

	"git-reason/cmd/git-reason/network"
)

func main() {
	os.Exit(network.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
