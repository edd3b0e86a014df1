package cli

import (
	"bytes"
	"strings"
	"testing"

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
	all := newApp(nil, []string{"git-reason"}, nil, nil, nil).Commands
	if len(all) != len(commands) {
		t.Fatalf("git reason alone built %d verbs, want all %d", len(all), len(commands))
	}
	for i, v := range commands {
		if all[i].Name != v.name {
			t.Errorf("commands[%d] is named %q, but its constructor makes %q", i, v.name, all[i].Name)
		}
		built := newApp(nil, []string{"git-reason", "--profile", "ci", v.name, "x"}, nil, nil, nil).Commands
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
	if n := len(newApp(nil, []string{"git-reason", "--version"}, nil, nil, nil).Commands); n != 0 {
		t.Errorf("--version built %d verbs, want none", n)
	}
	if n := len(newApp(nil, []string{"git-reason", "nosuchverb"}, nil, nil, nil).Commands); n != len(commands) {
		t.Errorf("an unknown verb built %d verbs, want all %d, to suggest the nearest", n, len(commands))
	}
}
