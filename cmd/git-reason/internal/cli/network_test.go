package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"git-reason/reliability/harness"
)

// The command that says how to install NetProgram is README's own.
func TestInstallCommandAsREADME(t *testing.T) {
	data := harness.ReadFile(t, "../../../../README.md")
	if !strings.Contains(string(data), "\n"+installCommand+" ") {
		t.Errorf("README's install command is not %q", installCommand)
	}
}

// A command line naming a verb builds that verb alone, and its help is
// the one the whole tree gives; --version alone
// builds none; help, completion and the manual page build all.
func TestOnlyTheNamedVerbIsBuilt(t *testing.T) {
	verbs := func(args ...string) []*cli.Command { // the help verb (ownHelp) is in every tree
		return slices.DeleteFunc(newApp(nil, args, nil, nil, nil).Commands, func(c *cli.Command) bool { return c.Name == "help" })
	}
	all := verbs("git-reason")
	if len(all) != len(commands) {
		t.Fatalf("git reason alone built %d verbs, want all %d", len(all), len(commands))
	}
	for i, v := range commands {
		if all[i].Name != v.name {
			t.Errorf("commands[%d] is named %q, but its constructor makes %q", i, v.name, all[i].Name)
		}
		built := verbs("git-reason", "--profile", "ci", v.name, "x")
		want := 1
		if wholeTree[v.name] {
			want = len(commands)
		}
		if len(built) != want || (want == 1 && built[0].Name != v.name) {
			t.Errorf("git reason --profile ci %s built %d verbs, want %d", v.name, len(built), want)
		}
		if all[i].Hidden {
			continue
		}
		args := []string{"git-reason", v.name, "-h"}
		var alone, whole bytes.Buffer
		if err := newApp(nil, args, nil, &alone, &alone).Run(args); err != nil {
			t.Fatalf("%s -h, built alone: %v", v.name, err)
		}
		if err := newApp(nil, []string{"git-reason"}, nil, &whole, &whole).Run(args); err != nil {
			t.Fatalf("%s -h, in the whole tree: %v", v.name, err)
		}
		if alone.String() != whole.String() || !strings.Contains(alone.String(), "USAGE") {
			t.Errorf("%s -h, built alone:\n%s\nwant what the whole tree prints:\n%s", v.name, alone.String(), whole.String())
		}
	}
	if n := len(verbs("git-reason", "--version")); n != 0 {
		t.Errorf("--version built %d verbs, want none", n)
	}
	if n := len(verbs("git-reason", "nosuchverb")); n != len(commands) {
		t.Errorf("an unknown verb built %d verbs, want all %d, to suggest the nearest", n, len(commands))
	}
}

// A Ctrl-C caught before a network verb is handed to NetProgram ends the
// command (exit 130) without the exec, which would lose it: NetProgram
// never heard of it, and a server interrupted as it started served on.
func TestInterruptBeforeTheExecEndsTheCommand(t *testing.T) {
	bin := t.TempDir()
	harness.WriteFile(t, filepath.Join(bin, NetProgram), "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(filepath.Join(bin, NetProgram), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	var execs []string
	defer func(e func(string, []string, []string) error) { execProgram = e }(execProgram)
	execProgram = func(path string, argv, env []string) error {
		execs = append(execs, strings.Join(argv, " "))
		return errors.New("not here")
	}
	app := &cli.App{Metadata: map[string]any{
		"args":    []string{"git-reason", "serve", "--listen", "127.0.0.1:0"},
		"streams": streams{os.Stdin, os.Stdout, os.Stderr},
	}}
	c := cli.NewContext(app, flag.NewFlagSet("serve", flag.ContinueOnError), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the interrupt, caught
	c.Context = ctx
	err := forward(c)
	if code := exitCode(err); code != 130 || len(execs) != 0 {
		t.Errorf("a network verb interrupted before its exec: exit %d (%v), exec %q; want exit 130 and no exec", code, err, execs)
	}
}
