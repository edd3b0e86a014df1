package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usageError(c, fmt.Errorf("unexpected argument %q", c.Args().First()), true)
			}
			_, err := fmt.Fprintln(c.App.Writer, versionLine())
			return err
		},
	}
}

// versionLine is "git reason version V (revision R, GO)", from what the Go
// toolchain stamped into the binary: V is the module version ("(devel)"
// for a build from a work tree), R the commit it was built from, with
// "-dirty" for uncommitted changes, when the build recorded it.
func versionLine() string {
	version, revision, dirty := "(unknown)", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "git reason version " + version + " ("
	if revision != "" {
		line += "revision " + revision
		if dirty {
			line += "-dirty"
		}
		line += ", "
	}
	return line + runtime.Version() + ")"
}
