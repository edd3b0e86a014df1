package advisor

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"git-reason/policy"
)

// Env answers the two presence questions availability asks of the machine.
// Presence is all it may learn: no implementation may return, print, store
// or log a credential's value.
type Env interface {
	// LookPath reports whether an executable is installed: found on PATH,
	// or present and executable when it is a path.
	LookPath(executable string) bool
	// CredentialSet reports whether the environment variable is set to a
	// non-empty value.
	CredentialSet(name string) bool
}

// SystemEnv is the Env of this process: exec.LookPath and the process
// environment. It runs nothing and contacts nothing.
func SystemEnv() Env { return systemEnv{} }

type systemEnv struct{}

func (systemEnv) LookPath(executable string) bool {
	_, err := exec.LookPath(executable)
	return err == nil
}

func (systemEnv) CredentialSet(name string) bool {
	v, ok := os.LookupEnv(name)
	return ok && v != "" // the value goes no further than this comparison
}

// Inputs is everything availability is derived from besides the
// declarations. Nothing in it is probed: the caller reads it once.
type Inputs struct {
	Env      Env         // presence; nil means nothing is installed or configured
	Mode     policy.Mode // the profile's mode
	Disabled []string    // advisor ids switched off (reason.disable, GIT_REASON_DISABLE)
	Origin   string      // this clone's origin: only its outcomes count
	Outcomes []Outcome   // this clone's consultation outcomes, from its Journal
	Now      time.Time   // the moment of the snapshot
}

// Availability derives the snapshot: every declared advisor, in preference
// order, with its status, a reason in words, Until (RFC 3339 UTC) while its
// circuit is open, its capabilities and whether it is local. It is a pure
// function of its arguments and never contacts an advisor.
//
// The first rule that applies decides an advisor's status:
//
//  1. disabled: its id is in the disable list;
//  2. excluded_by_mode: the mode does not admit it (offline admits only
//     local: true advisors, ci none, an unknown mode none);
//  3. not_configured: its declaration lacks what its transport needs (a
//     transport, a valid adapter, base_url, command, executable or
//     credential: the errors Validate reports for it);
//  4. not_installed: its executable is not found;
//  5. not_configured: its credential variable is not set;
//  6. open or recovering: its circuit (see Circuit);
//  7. available.
func Availability(decls []Declaration, in Inputs) []policy.Advisor {
	out := make([]policy.Advisor, 0, len(decls))
	for _, d := range decls {
		a := policy.Advisor{
			ID:           d.ID,
			Capabilities: append([]string(nil), d.Capabilities...),
			Local:        d.Local,
		}
		a.Status, a.Reason, a.Until = status(d, in)
		out = append(out, a)
	}
	return out
}

// doctorStep ends the status reason of an incomplete declaration, as the
// command line says it; ToolReason says it to the MCP tools.
const doctorStep = "; run git reason doctor"

// ToolReason is an advisor's status reason as the MCP tools say it: the
// doctor tool, which a client calls, in place of the command line, which
// it cannot type.
func ToolReason(reason string) string {
	if r, ok := strings.CutSuffix(reason, doctorStep); ok {
		return r + "; the doctor tool's findings say what to complete"
	}
	return reason
}

func status(d Declaration, in Inputs) (policy.Status, string, string) {
	if slices.Contains(in.Disabled, d.ID) {
		return policy.StatusDisabled, "listed in the disable list (git config reason.disable or GIT_REASON_DISABLE)", ""
	}
	if ok, why := policy.ModeAdmits(in.Mode, d.Local); !ok {
		return policy.StatusExcludedByMode, why, ""
	}
	for _, f := range checkStructure(d) {
		if f.Severity == SeverityError {
			return policy.StatusNotConfigured, "declaration incomplete: " + f.Message + doctorStep, ""
		}
	}
	env := in.Env
	if env == nil {
		env = nothing{}
	}
	if exe := d.executablePath(); exe != "" && !env.LookPath(exe) {
		return policy.StatusNotInstalled, "executable " + d.Executable + " not found on PATH", ""
	}
	if d.Credential != "" && !env.CredentialSet(d.Credential) {
		return policy.StatusNotConfigured, "credential variable " + d.Credential + " is not set", ""
	}
	st, why, until := Circuit(d, in.Origin, in.Outcomes, in.Now)
	if st == policy.StatusOpen {
		return st, why, until.UTC().Format(time.RFC3339)
	}
	if st == policy.StatusRecovering {
		return st, why, ""
	}
	return policy.StatusAvailable, presence(d), ""
}

// presence says what made an available advisor count as present.
func presence(d Declaration) string {
	switch {
	case d.Executable != "" && d.Credential != "":
		return "executable " + d.Executable + " found and credential variable " + d.Credential + " set"
	case d.Executable != "":
		return "executable " + d.Executable + " found on PATH"
	case d.Credential != "":
		return "credential variable " + d.Credential + " set"
	}
	return "declared with nothing to check for presence"
}

type nothing struct{}

func (nothing) LookPath(string) bool      { return false }
func (nothing) CredentialSet(string) bool { return false }
