package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	o := &base{}
	return &cli.Command{
		Flags: []cli.Flag{o.jsonFlag()},
		Action: noArgs(o, func(c *cli.Context) error {
			v := buildVersion()
			return o.render(v, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, v.line())
				return err
			})
		}),
	}
}

// version is what the Go toolchain stamped into the binary, as version
// --json prints it: the module version ("(devel)" for a build from a
// work tree), the commit it was built from and whether the work tree had
// uncommitted changes (when the build recorded them), and the Go version.
type version struct {
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func buildVersion() version {
	v := version{Version: "(unknown)", Go: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		v.Version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

// versionLine is "git reason version V (revision R, GO)", with "-dirty"
// after R for uncommitted changes.
func versionLine() string { return buildVersion().line() }

func (v version) line() string {
	line := "git reason version " + v.Version + " ("
	if v.Revision != "" {
		line += "revision " + v.Revision
		if v.Modified {
			line += "-dirty"
		}
		line += ", "
	}
	return line + v.Go + ")"
}
