package advisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"git-reason/advisor/transport"
	"git-reason/policy"
)

// fakeEnv is presence by table.
type fakeEnv struct {
	executables map[string]bool
	credentials map[string]bool
}

func (f fakeEnv) LookPath(e string) bool      { return f.executables[e] }
func (f fakeEnv) CredentialSet(n string) bool { return f.credentials[n] }

func everything() fakeEnv {
	return fakeEnv{
		executables: map[string]bool{"bravo-cli": true, "charlie-serve": true, "echo-cli": true},
		credentials: map[string]bool{"ALPHA_TOKEN": true, "DELTA_TOKEN": true},
	}
}

var (
	declAPI   = Declaration{ID: "alpha", Transport: TransportAPI, Adapter: AdapterChatCompletions, BaseURL: "https://alpha.invalid/v1", Credential: "ALPHA_TOKEN", Capabilities: []string{"reasoning", "code_review"}}
	declCLI   = Declaration{ID: "bravo", Transport: TransportCLI, Adapter: AdapterExec, Executable: "bravo-cli", Command: []string{"bravo-cli"}, Capabilities: []string{"reasoning"}}
	declLocal = Declaration{ID: "charlie", Transport: TransportLocalRuntime, Adapter: AdapterMessages, BaseURL: "http://localhost:1/v1", Executable: "charlie-serve", Local: true, Capabilities: []string{"reasoning"}}
	declPeer  = Declaration{ID: "delta", Transport: TransportPeer, Adapter: AdapterPeer, BaseURL: "https://peer.invalid", Credential: "DELTA_TOKEN"}
	declBoth  = Declaration{ID: "echo", Transport: TransportCLI, Adapter: AdapterExec, Executable: "echo-cli", Command: []string{"echo-cli"}, Credential: "ECHO_TOKEN"}
	declBad   = Declaration{ID: "foxtrot", Transport: TransportAPI, Adapter: AdapterExec, BaseURL: "https://f.invalid", Credential: "ALPHA_TOKEN"}
)

func TestAvailabilityStatuses(t *testing.T) {
	twoTimeouts := []Outcome{fail(1, transport.Timeout), fail(2, transport.Timeout)}
	cases := []struct {
		name   string
		decl   Declaration
		in     Inputs
		want   policy.Status
		reason string
		until  string
	}{
		{"api with credential set", declAPI, Inputs{Env: everything(), Mode: policy.ModeNormal}, policy.StatusAvailable, "credential variable ALPHA_TOKEN set", ""},
		{"cli with executable found", declCLI, Inputs{Env: everything(), Mode: policy.ModeNormal}, policy.StatusAvailable, "executable bravo-cli found", ""},
		{"peer with token set", declPeer, Inputs{Env: everything(), Mode: policy.ModeNormal}, policy.StatusAvailable, "DELTA_TOKEN", ""},
		{"local advisor in offline mode", declLocal, Inputs{Env: everything(), Mode: policy.ModeOffline}, policy.StatusAvailable, "charlie-serve", ""},
		{"disabled", declAPI, Inputs{Env: everything(), Mode: policy.ModeNormal, Disabled: []string{"zulu", "alpha"}}, policy.StatusDisabled, "disable list", ""},
		{"disabled wins over the mode", declAPI, Inputs{Env: everything(), Mode: policy.ModeCI, Disabled: []string{"alpha"}}, policy.StatusDisabled, "disable list", ""},
		{"ci excludes every advisor", declLocal, Inputs{Env: everything(), Mode: policy.ModeCI}, policy.StatusExcludedByMode, "mode ci", ""},
		{"offline excludes a remote advisor", declAPI, Inputs{Env: everything(), Mode: policy.ModeOffline}, policy.StatusExcludedByMode, "only advisors on this machine", ""},
		{"an unknown mode excludes", declLocal, Inputs{Env: everything(), Mode: "turbo"}, policy.StatusExcludedByMode, "unknown mode", ""},
		{"an empty mode excludes", declLocal, Inputs{Env: everything()}, policy.StatusExcludedByMode, "unknown mode", ""},
		{"mode wins over absence", declCLI, Inputs{Env: fakeEnv{}, Mode: policy.ModeCI}, policy.StatusExcludedByMode, "mode ci", ""},
		{"executable missing", declCLI, Inputs{Env: fakeEnv{}, Mode: policy.ModeNormal}, policy.StatusNotInstalled, "executable bravo-cli not found", ""},
		{"nil env finds nothing", declLocal, Inputs{Mode: policy.ModeNormal}, policy.StatusNotInstalled, "charlie-serve", ""},
		{"credential unset", declAPI, Inputs{Env: fakeEnv{}, Mode: policy.ModeNormal}, policy.StatusNotConfigured, "credential variable ALPHA_TOKEN is not set", ""},
		{"not installed wins over not configured", declBoth, Inputs{Env: fakeEnv{}, Mode: policy.ModeNormal}, policy.StatusNotInstalled, "echo-cli", ""},
		{"installed but credential unset", declBoth, Inputs{Env: everything(), Mode: policy.ModeNormal}, policy.StatusNotConfigured, "ECHO_TOKEN", ""},
		{"incomplete declaration", declBad, Inputs{Env: everything(), Mode: policy.ModeNormal}, policy.StatusNotConfigured, "declaration incomplete: adapter \"exec\" cannot speak transport api", ""},
		{"circuit open", declAPI, Inputs{Env: everything(), Mode: policy.ModeNormal, Origin: me, Outcomes: twoTimeouts, Now: at(3)}, policy.StatusOpen, "circuit open", "2026-03-01T12:12:00Z"},
		{"circuit recovering", declAPI, Inputs{Env: everything(), Mode: policy.ModeNormal, Origin: me, Outcomes: twoTimeouts, Now: at(30)}, policy.StatusRecovering, "half-open", ""},
		{"other origin's failures", declAPI, Inputs{Env: everything(), Mode: policy.ModeNormal, Origin: them, Outcomes: twoTimeouts, Now: at(3)}, policy.StatusAvailable, "", ""},
		{"absence wins over an open circuit", declAPI, Inputs{Env: fakeEnv{}, Mode: policy.ModeNormal, Origin: me, Outcomes: twoTimeouts, Now: at(3)}, policy.StatusNotConfigured, "ALPHA_TOKEN", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Availability([]Declaration{tc.decl}, tc.in)
			if len(got) != 1 {
				t.Fatalf("got %d entries, want 1", len(got))
			}
			a := got[0]
			if a.ID != tc.decl.ID || a.Status != tc.want {
				t.Fatalf("got %s %s (%s), want %s", a.ID, a.Status, a.Reason, tc.want)
			}
			if !strings.Contains(a.Reason, tc.reason) || a.Reason == "" {
				t.Errorf("reason %q does not say %q", a.Reason, tc.reason)
			}
			if a.Until != tc.until {
				t.Errorf("until = %q, want %q", a.Until, tc.until)
			}
		})
	}
}

// Every declared advisor appears, in declaration (preference) order, with
// its capabilities and locality, whatever its status.
func TestAvailabilityKeepsOrderAndFields(t *testing.T) {
	decls := []Declaration{declPeer, declLocal, declAPI, declCLI}
	got := Availability(decls, Inputs{Env: fakeEnv{}, Mode: policy.ModeNormal})
	var order []string
	for _, a := range got {
		order = append(order, a.ID)
	}
	if want := []string{"delta", "charlie", "alpha", "bravo"}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order = %v, want %v", order, want)
	}
	if !got[1].Local || got[2].Local {
		t.Errorf("local flags = %v, %v; want true, false", got[1].Local, got[2].Local)
	}
	if !reflect.DeepEqual(got[2].Capabilities, declAPI.Capabilities) {
		t.Errorf("capabilities = %v", got[2].Capabilities)
	}
	got[2].Capabilities[0] = "changed"
	if declAPI.Capabilities[0] != "reasoning" {
		t.Error("snapshot shares the declaration's capability slice")
	}
}

// The snapshot feeds the policy: in offline mode only the local advisor is
// selected even though a remote one is configured.
func TestAvailabilityFeedsPolicy(t *testing.T) {
	snap := Availability([]Declaration{declAPI, declLocal}, Inputs{Env: everything(), Mode: policy.ModeOffline})
	plan := policy.Decide(policy.Assessment{Materiality: "critical", Reversibility: "costly"},
		policy.Profile{Name: "offline", Mode: policy.ModeOffline}, snap)
	if !reflect.DeepEqual(plan.Selected, []string{"charlie"}) {
		t.Fatalf("selected = %v, want [charlie]", plan.Selected)
	}
}

// The system environment reports presence only: a credential's value never
// reaches the snapshot.
func TestSystemEnvPresenceOnly(t *testing.T) {
	const canary = "canary-5f0c2b9e-value"
	dir := t.TempDir()
	for _, name := range []string{"bravo-cli", "echo-cli"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	t.Setenv("ALPHA_TOKEN", canary)
	t.Setenv("ECHO_TOKEN", "")
	env := SystemEnv()
	if !env.LookPath("bravo-cli") || env.LookPath("missing-cli") {
		t.Error("LookPath does not follow PATH")
	}
	if !env.CredentialSet("ALPHA_TOKEN") || env.CredentialSet("ECHO_TOKEN") || env.CredentialSet("UNSET_TOKEN_X") {
		t.Error("CredentialSet: want set, empty-as-unset, unset")
	}
	snap := Availability([]Declaration{declAPI, declCLI, declBoth}, Inputs{Env: env, Mode: policy.ModeNormal})
	out, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), canary) {
		t.Fatalf("credential value leaked into the snapshot: %s", out)
	}
	if snap[0].Status != policy.StatusAvailable || snap[2].Status != policy.StatusNotConfigured {
		t.Errorf("statuses = %s, %s", snap[0].Status, snap[2].Status)
	}
}
