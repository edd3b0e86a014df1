package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/reliability/harness"
)

var updateDeclarations = flag.Bool("update-declarations", false, "rewrite testdata/declarations.golden")

// What a user reads of every verb — its help, each subcommand's, and the
// manual page generated from the same declarations — is held to a golden
// file, so that declaring the verbs another way changes none of it. After
// a deliberate change: go test -run TestDeclarations -update-declarations.
func TestDeclarations(t *testing.T) {
	var out bytes.Buffer
	say := func(args ...string) {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"git-reason"}, args...), strings.NewReader(""), &stdout, &stderr)
		out.WriteString("$ git reason " + strings.Join(args, " ") + "\n")
		out.Write(stdout.Bytes())
		out.Write(stderr.Bytes())
		if code != exitOK {
			t.Errorf("git reason %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
	var walk func(path []string, cmd *cli.Command)
	walk = func(path []string, cmd *cli.Command) {
		say(append(path, "--help")...)
		for _, sub := range cmd.Subcommands {
			walk(append(path[:len(path):len(path)], sub.Name), sub)
		}
	}
	for _, v := range commands {
		walk([]string{v.name}, v.make())
	}
	say("man")
	golden := filepath.Join("testdata", "declarations.golden")
	if *updateDeclarations {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := harness.ReadFile(t, golden)
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("help differs from %s at line %d:\n got: %q\nwant: %q", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("help differs from %s in length: %d lines, want %d", golden, len(gl), len(wl))
	}
}

// Every verb and subcommand answers a flag it does not know with one line
// on stderr naming its help (a subcommand's with its verb), and exit 2: never urfave/cli's help text.
// __complete, which the shells call, fails silently instead.
func TestUsageErrorsEveryVerb(t *testing.T) {
	var walk func(path []string, cmd *cli.Command)
	walk = func(path []string, cmd *cli.Command) {
		args := append(append([]string{"git-reason"}, path...), "--no-such-flag")
		var stdout, stderr bytes.Buffer
		code := Main(args, strings.NewReader(""), &stdout, &stderr)
		want, wantCode := "git reason: unknown option --no-such-flag (see 'git reason "+strings.Join(path, " ")+" -h')\n", exitUsage
		if cmd.Name == "__complete" {
			want, wantCode = "", exitFailure
		}
		if code != wantCode || stderr.String() != want || stdout.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and stderr %q", strings.Join(args, " "), code, stdout.String(), stderr.String(), wantCode, want)
		}
		for _, sub := range cmd.Subcommands {
			walk(append(path[:len(path):len(path)], sub.Name), sub)
		}
	}
	for _, v := range commands {
		cmd := v.make()
		cmd.Name = v.name
		walk([]string{v.name}, cmd)
	}
}

// The configuration table (docs/CONFIGURATION.md and the manual page)
// names verbs with a flag, "`show --question`": each must be a flag the
// verb has, or the documentation sends a reader to a usage error.
func TestConfigurationFlagsExist(t *testing.T) {
	named := regexp.MustCompile("`([a-z][a-z ]*) (--[a-z][a-z-]*)`")
	for _, d := range settings.Docs {
		for _, m := range named.FindAllStringSubmatch(d.ReadBy+" "+d.Overrides, -1) {
			path := strings.Fields(m[1])
			if path[0] == "git" {
				continue // git's own option
			}
			var cmd *cli.Command
			for _, v := range commands {
				if v.name == path[0] {
					cmd = v.make()
				}
			}
			for _, sub := range path[1:] {
				if cmd != nil {
					cmd = cmd.Command(sub)
				}
			}
			if cmd == nil || !isFlag(cmd.Flags, m[2]) {
				t.Errorf("%s names `git reason %s %s`: no such verb or flag", d.Key, m[1], m[2])
			}
		}
	}
}
