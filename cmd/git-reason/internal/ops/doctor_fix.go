package ops

import (
	"strings"

	"git-reason/advisor"
	"git-reason/policy/neutrality"
)

// Fix is the command that fixes what the finding reports, or opens what
// to edit; "" when the finding itself is the whole advice.
func (f Finding) Fix() string {
	switch f.Code {
	case "untrusted_overlay":
		return "git reason trust"
	case "untrusted_signers":
		return "git reason trust --show"
	case "unknown_profile":
		return "git config --unset reason.profile"
	case "broken_ref":
		return "git reason verify " + f.Subject + " --json"
	case "hook_modified":
		return "git reason hooks install --force"
	case "hook_not_installed", "hook_outdated":
		return "git reason hooks install"
	case "neutrality_violation":
		return "git reason check neutrality"
	case "neutrality_not_configured", "neutrality_config":
		return "${EDITOR:-vi} " + neutrality.ConfigPath
	case advisor.CodeUnknownDisabled:
		return "git config --unset-all reason.disable"
	}
	if f.Where != "" {
		file, _, _ := strings.Cut(f.Where, ":")
		return "${EDITOR:-vi} " + file
	}
	return ""
}
