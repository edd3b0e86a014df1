package advisor

import (
	"testing"

	"git-reason/policy"
)

// The shipped declarations load strictly and have nothing for doctor to
// report.
func TestEmbeddedDefaultsLoadClean(t *testing.T) {
	c, findings, err := Load(Sources{})
	if err != nil {
		t.Fatalf("load embedded declarations: %v", err)
	}
	for _, f := range findings {
		t.Errorf("finding in shipped declarations: %s", f)
	}
	if len(c.Advisors) == 0 {
		t.Fatal("no advisor declared")
	}
	transports := map[string]bool{}
	adapters := map[string]bool{}
	locals := 0
	for _, d := range c.Advisors {
		transports[d.Transport] = true
		adapters[d.Adapter] = true
		if d.Local {
			locals++
		}
		if len(d.Sources) != 1 || d.Sources[0] == "" {
			t.Errorf("advisor %s: sources %v, want its one embedded line", d.ID, d.Sources)
		}
	}
	for _, tr := range Transports() {
		if !transports[tr] {
			t.Errorf("no default advisor uses transport %s", tr)
		}
	}
	for _, ad := range []string{AdapterChatCompletions, AdapterMessages, AdapterExec, AdapterPeer} {
		if !adapters[ad] {
			t.Errorf("no default advisor uses adapter %s", ad)
		}
	}
	if locals == 0 {
		t.Error("no local advisor: offline mode could never ask anyone")
	}
	for id, mode := range map[string]policy.Mode{"default": policy.ModeNormal, "offline": policy.ModeOffline, "ci": policy.ModeCI} {
		p, ok := c.Profile(id)
		if !ok || p.Mode != mode {
			t.Errorf("profile %s = %+v, %v; want mode %s", id, p, ok, mode)
		}
	}
}

// Every shipped exec advisor runs a coding agent, which reads project
// settings where it starts: each runs in an empty directory, never in a
// cloned stranger's work tree.
func TestShippedExecAdvisorsRunInEmptyDir(t *testing.T) {
	c, _, err := Load(Sources{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Advisors {
		if d.Adapter == AdapterExec && !d.RunsInEmptyDir() {
			t.Errorf("shipped advisor %s runs its command in the work tree (workdir %q), want workdir: empty", d.ID, d.Workdir)
		}
	}
}
