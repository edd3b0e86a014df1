package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/ops"
)

type mcpOptions struct {
	base
	Repo string // --repo: the repository served; "": the one the command starts in
	// Profile is --profile, the verb's or the global one: the server's
	// execution profile ("": the repository's).
	Profile string
	// Streamable HTTP instead of stdio, under serve's rules.
	HTTP string // --http ADDR
	httpOptions
}

func mcpCommand() *cli.Command {
	o := &mcpOptions{}
	return &cli.Command{
		Description: "Add it to a host as {\"command\": \"git\", \"args\": [\"reason\", \"mcp\", \"--repo\", \"/path/to/repo\"]}.\n" +
			"Every tool is declared in share/tools.yaml ('git reason tools'); writes go through the same writer as the command line.\n" +
			"On stdio each message is one line of JSON; a line that is not a message is answered with JSON-RPC's error and\n" +
			"the session goes on. At the end of input every request read is answered before the server exits, so\n" +
			"'printf REQUESTS | git reason mcp' works from a script.\n\n" +
			"With --http ADDR it serves streamable HTTP at http://ADDR/mcp instead, under serve's rules: every request\n" +
			"needs the token ('Authorization: Bearer <token>'), loopback included: the value of the --token-env variable\n" +
			"(16 characters at least), or one generated once and kept in .git/reason/mcp-token (mode 0600). Requests must\n" +
			"be application/json, name a loopback Host (or one given with --allow-host) and carry no Origin header, unless\n" +
			"from a page on an origin given with --allow-origin: its preflight is answered and the answers name its origin\n" +
			"(the token is still needed).\n" +
			"An ADDR without a host (:7412) listens on 127.0.0.1.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "repo", Usage: "serve the repository at `DIR` (default: the one the command starts in)", Destination: &o.Repo},
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on `ADDR` (e.g. 127.0.0.1:7412) instead of stdio", Destination: &o.HTTP},
		}, append(o.flags("with --http: ", "clients", "GIT_REASON_MCP_TOKEN", "mcp-token", ops.MCPMaxInFlight), profileFlag())...),
		Action: noArgs(&o.base, func(c *cli.Context) error {
			if o.HTTP == "" {
				for _, f := range []string{"allow-host", "allow-origin", "max-inflight", "tls-cert", "tls-key", "token-env"} {
					if isSet(c, f) {
						return ops.Usage("--%s applies to --http only: give --http ADDR as well", f)
					}
				}
			}
			o.Profile = profileOf(c)
			ctx, stop := untilStopped(c.Context)
			defer stop()
			return runMCP(ctx, o)
		}),
	}
}

// runMCP serves one session on stdin and stdout until the host closes it,
// or, with --http, every client's sessions until ctx ends (Ctrl-C,
// SIGTERM).
func runMCP(ctx context.Context, o *mcpOptions) error {
	req := MCPRequest{Dir: o.Repo, Version: moduleVersion(), Profile: o.Profile, In: o.In, Out: o.Out}
	if o.HTTP != "" {
		var err error
		if req.HTTP, err = o.request(o.HTTP, "MCP", o.Err); err != nil {
			return err
		}
	}
	if o.Repo != "" {
		if fi, err := os.Stat(o.Repo); err != nil || !fi.IsDir() {
			return ops.Usage("--repo %s: no such directory: give the repository's directory", o.Repo)
		}
	}
	return o.Net.MCP(ctx, req)
}

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
		Flags: []cli.Flag{o.jsonFlag()},
		Action: noArgs(&o.base, func(c *cli.Context) error {
			return runTools(o)
		}),
	}
}

func runTools(o *toolsOptions) error {
	rows, err := ops.Tools()
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
