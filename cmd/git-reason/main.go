// Command git-reason keeps an engineering team's reasoning as typed,
// schema-validated records on git refs. With it on PATH, run it as
// "git reason".
package main

import (
	"os"

	"git-reason/cmd/git-reason/internal/cli"
)

func main() {
	collectLate()
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
