package advisor

import (
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/policy"
)

// Severity says whether a finding makes the declarations wrong (error) or
// merely suspicious (warning). doctor exits 3 when any finding is an error.
type Severity string

// The severities of a finding.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// The finding codes: stable identifiers that scripts may match on.
const (
	CodeDuplicateID        = "duplicate_id"        // an id repeated within one file
	CodeUnresolvedProvider = "unresolved_provider" // provider names no declared provider
	CodeUnresolvedVendor   = "unresolved_vendor"   // vendor names no declared vendor
	CodeUnresolvedModel    = "unresolved_model"    // model is not one of its vendor's models, or has no vendor
	CodeUnknownCapability  = "unknown_capability"  // capability outside the vocabulary
	CodeUnknownTransport   = "unknown_transport"   // transport missing or not one of Transports()
	CodeMissingAdapter     = "missing_adapter"     // a transport without an adapter
	CodeInvalidAdapter     = "invalid_adapter"     // adapter that cannot speak the transport
	CodeMissingBaseURL     = "missing_base_url"    // api, local_runtime and peer need one
	CodeMissingCommand     = "missing_command"     // the exec adapter needs an argv
	CodeMissingExecutable  = "missing_executable"  // cli and local_runtime need one
	CodeMissingCredential  = "missing_credential"  // api needs a credential variable
	CodeNotLoopback        = "not_loopback"        // local_runtime base_url must be loopback
	CodeNotLocal           = "not_local"           // local_runtime should declare local: true
	CodeCommandMismatch    = "command_mismatch"    // command[0] is not the declared executable
	CodeNegativeCooldown   = "negative_cooldown"   // cooldown below zero
	CodeBadMode            = "bad_mode"            // profile mode not normal, offline or ci
	CodeMissingProfile     = "missing_profile"     // default or ci profile not declared
	CodeDuplicateModel     = "duplicate_model"     // a model id repeated within a vendor
	CodeUnknownOrderID     = "unknown_order_id"    // order names an undeclared advisor
	CodeUnknownDisabled    = "unknown_disabled"    // disable list names an undeclared advisor
)

// Finding is one problem in the declarations, reported by git reason doctor.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Subject  string   `json:"subject"`         // what it is about, e.g. "advisor some-id"
	Message  string   `json:"message"`         // what is wrong and what to do, lowercase
	Where    string   `json:"where,omitempty"` // file:line of the declaration, when known
}

// String renders "where: severity: subject: message (code)".
func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s (%s)", f.Severity, f.Subject, f.Message, f.Code)
	if f.Where != "" {
		s = f.Where + ": " + s
	}
	return s
}

// Validate checks the meaning of a catalog: references, vocabulary,
// transports, adapters, the fields each transport needs, and profiles. It
// returns every finding, in declaration order; it never contacts anything.
func Validate(c *Catalog) []Finding {
	var out []Finding
	ids := catalogIDs{providers: positions(c.Providers), vendors: positions(c.Vendors), capabilities: positions(c.Capabilities)}
	for _, d := range c.Advisors {
		out = append(out, checkStructure(d)...)
		out = append(out, checkReferences(c, ids, d)...)
	}
	for _, v := range c.Vendors {
		seen := map[string]bool{}
		for _, m := range v.Models {
			if seen[m.ID] {
				out = append(out, finding(SeverityError, CodeDuplicateModel, "vendor "+v.ID, last(v.Sources),
					fmt.Sprintf("model %q is listed twice", m.ID)))
			}
			seen[m.ID] = true
		}
	}
	for _, p := range c.Profiles {
		if !policy.ValidMode(p.Mode) {
			out = append(out, finding(SeverityError, CodeBadMode, "profile "+p.ID, last(p.Sources),
				fmt.Sprintf("mode %q is not one of normal, offline, ci", p.Mode)))
		}
	}
	for _, id := range []string{"default", "ci"} {
		if _, ok := c.Profile(id); !ok {
			out = append(out, finding(SeverityError, CodeMissingProfile, "profile "+id, "",
				"profile "+id+" is not declared; it is chosen when no profile is named"))
		}
	}
	return out
}

// CheckDisabled reports disable-list entries that name no declared advisor
// (a typo there would silently disable nothing).
func CheckDisabled(c *Catalog, disabled []string) []Finding {
	var out []Finding
	for _, id := range disabled {
		if _, ok := c.Advisor(id); !ok {
			out = append(out, finding(SeverityWarning, CodeUnknownDisabled, "advisor "+id, "",
				"the disable list names an advisor that is not declared"))
		}
	}
	return out
}

// checkStructure finds what a declaration's transport and adapter need
// and lack. Availability reports an advisor with any such error as
// not_configured.
func checkStructure(d Declaration) []Finding {
	var out []Finding
	add := func(sev Severity, code, msg string) {
		out = append(out, finding(sev, code, "advisor "+d.ID, last(d.Sources), msg))
	}
	adapters := AdaptersFor(d.Transport)
	switch {
	case d.Transport == "":
		add(SeverityError, CodeUnknownTransport, "declares no transport (one of "+strings.Join(Transports(), ", ")+")")
	case adapters == nil:
		add(SeverityError, CodeUnknownTransport, fmt.Sprintf("transport %q is not one of %s", d.Transport, strings.Join(Transports(), ", ")))
	case d.Adapter == "":
		add(SeverityError, CodeMissingAdapter, fmt.Sprintf("transport %s declares no adapter (one of %s)", d.Transport, strings.Join(adapters, ", ")))
	case !slices.Contains(adapters, d.Adapter):
		add(SeverityError, CodeInvalidAdapter, fmt.Sprintf("adapter %q cannot speak transport %s (use one of %s)", d.Adapter, d.Transport, strings.Join(adapters, ", ")))
	}
	needsURL := d.Transport == TransportAPI || d.Transport == TransportLocalRuntime || d.Transport == TransportPeer
	if needsURL && d.BaseURL == "" {
		add(SeverityError, CodeMissingBaseURL, "transport "+d.Transport+" needs a base_url")
	}
	if d.Transport == TransportAPI && d.Credential == "" {
		add(SeverityError, CodeMissingCredential, "transport api needs a credential: the variable whose presence means configured")
	}
	if (d.Transport == TransportCLI || d.Transport == TransportLocalRuntime) && d.Executable == "" {
		add(SeverityError, CodeMissingExecutable, "transport "+d.Transport+" needs an executable whose presence on PATH means installed")
	}
	if d.Adapter == AdapterExec && len(d.Command) == 0 {
		add(SeverityError, CodeMissingCommand, "adapter exec needs a command (argv; the prompt goes on stdin)")
	}
	if d.Adapter == AdapterExec && len(d.Command) > 0 && d.Executable != "" &&
		filepath.Base(d.Command[0]) != filepath.Base(d.Executable) {
		add(SeverityWarning, CodeCommandMismatch, fmt.Sprintf("command runs %q but presence is checked for executable %q", d.Command[0], d.Executable))
	}
	if d.Transport == TransportLocalRuntime {
		if d.BaseURL != "" && !loopback(d.BaseURL) {
			add(SeverityError, CodeNotLoopback, fmt.Sprintf("local_runtime base_url %q is not a loopback address", d.BaseURL))
		}
		if !d.Local {
			add(SeverityWarning, CodeNotLocal, "local_runtime runs on this machine but does not declare local: true, so offline mode will not admit it")
		}
	}
	if d.Cooldown < 0 {
		add(SeverityError, CodeNegativeCooldown, "cooldown is negative")
	}
	return out
}

// catalogIDs holds the positions of a catalog's declarations by id, made
// once for all its advisors' references.
type catalogIDs struct {
	providers, vendors, capabilities map[string]int
}

func checkReferences(c *Catalog, ids catalogIDs, d Declaration) []Finding {
	var out []Finding
	add := func(code, msg string) {
		out = append(out, finding(SeverityError, code, "advisor "+d.ID, last(d.Sources), msg))
	}
	if _, ok := ids.providers[d.Provider]; d.Provider != "" && !ok {
		add(CodeUnresolvedProvider, fmt.Sprintf("provider %q is not declared in providers.yaml or an overlay", d.Provider))
	}
	var vendor *Vendor
	if i, ok := ids.vendors[d.Vendor]; ok {
		vendor = &c.Vendors[i]
	}
	switch {
	case d.Vendor != "" && vendor == nil:
		add(CodeUnresolvedVendor, fmt.Sprintf("vendor %q is not declared in vendors.yaml or an overlay", d.Vendor))
	case d.Model != "" && d.Vendor == "":
		add(CodeUnresolvedModel, fmt.Sprintf("model %q needs a vendor to resolve against", d.Model))
	case d.Model != "" && !hasModel(vendor, d.Model):
		add(CodeUnresolvedModel, fmt.Sprintf("model %q is not one of vendor %s's models", d.Model, d.Vendor))
	}
	for _, k := range d.Capabilities {
		if _, ok := ids.capabilities[k]; !ok {
			add(CodeUnknownCapability, fmt.Sprintf("capability %q is not in the capability vocabulary", k))
		}
	}
	return out
}

func hasModel(v *Vendor, id string) bool {
	for _, m := range v.Models {
		if m.ID == id {
			return true
		}
	}
	return false
}

// loopback reports whether a URL's host is localhost or a loopback IP.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

func finding(sev Severity, code, subject, where, msg string) Finding {
	return Finding{Severity: sev, Code: code, Subject: subject, Message: msg, Where: where}
}

func last(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[len(xs)-1]
}
