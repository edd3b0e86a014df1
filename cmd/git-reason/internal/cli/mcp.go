package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/mcpserver"
)

type mcpOptions struct {
	base
	Repo string // --repo: the repository served; "": the one the command starts in
}

func mcpCommand() *cli.Command {
	o := &mcpOptions{}
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve this repository's reasoning to an MCP host over stdio",
		Description: "Add it to a host as {\"command\": \"git\", \"args\": [\"reason\", \"mcp\", \"--repo\", \"/path/to/repo\"]}.\n" +
			"Every tool is declared in share/tools.yaml ('git reason tools'); writes go through the same writer as the command line.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Usage: "serve the repository at `DIR` (default: the one the command starts in)", Destination: &o.Repo},
		},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runMCP(c.Context, o)
		},
	}
}

// runMCP serves one session on stdin and stdout until the host closes it.
func runMCP(ctx context.Context, o *mcpOptions) error {
	srv, err := mcpserver.New(ctx, mcpserver.Options{Dir: o.Repo, Version: moduleVersion()})
	if err != nil {
		return err
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(o.In), Writer: nopWriteCloser{o.Out}}
	if err := srv.Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// moduleVersion is the version the Go toolchain stamped into the binary.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(unknown)"
}

type toolsOptions struct{ base }

func toolsCommand() *cli.Command {
	o := &toolsOptions{}
	return &cli.Command{
		Name:  "tools",
		Usage: "list the MCP server's tools with the verb each projects and its execution policy (share/tools.yaml)",
		Flags: []cli.Flag{o.jsonFlag()},
		Action: func(c *cli.Context) error {
			o.bind(c)
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			return runTools(o)
		},
	}
}

func runTools(o *toolsOptions) error {
	rows, err := mcpserver.Tools()
	if err != nil {
		return err
	}
	return o.render(rows, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TOOL\tVERB\tCLASS\tRISK\tCOST\tCONCURRENT\tIDEMPOTENT\tADVISORS\tDESCRIPTION")
		for _, r := range rows {
			verb := r.Verb
			if verb == "" {
				verb = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, verb, r.ExecutionClass, r.Risk, r.CostHint,
				yesNo(r.ConcurrencySafe), yesNo(r.Idempotent), yesNo(r.ContactsAdvisors), r.Description)
		}
		return tw.Flush()
	})
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
