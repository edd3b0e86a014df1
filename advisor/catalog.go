package advisor

import (
	"errors"
	"path/filepath"
	"time"

	"git-reason/policy"
)

// The transports an advisor may declare.
const (
	TransportAPI          = "api"
	TransportCLI          = "cli"
	TransportLocalRuntime = "local_runtime"
	TransportPeer         = "peer"
)

// The adapters, named after wire protocols rather than vendors.
const (
	AdapterChatCompletions = "chat_completions"
	AdapterMessages        = "messages"
	AdapterExec            = "exec"
	AdapterPeer            = "peer"
)

// Where an exec advisor's command runs (Declaration.Workdir).
const (
	// WorkdirRepository runs it where git reason runs (the work tree's
	// top for an advisor a trusted repository overlay declares): a
	// repository's own script needs the files it names. The default.
	WorkdirRepository = "repository"
	// WorkdirEmpty runs it in an empty temporary directory, removed once
	// it has answered: the question carries its material, and a command
	// that reads configuration from where it starts (a coding agent's
	// project settings, which may name commands to run) finds none of
	// the repository's.
	WorkdirEmpty = "empty"
)

// Transports lists the declarable transports in documentation order.
func Transports() []string {
	return []string{TransportAPI, TransportCLI, TransportLocalRuntime, TransportPeer}
}

// AdaptersFor returns the adapters that can speak a transport (nil for an
// unknown transport). A declaration whose adapter is not listed for its
// transport is a finding. local_runtime is a loopback server speaking one
// of the HTTP formats.
func AdaptersFor(transport string) []string {
	switch transport {
	case TransportAPI, TransportLocalRuntime:
		return []string{AdapterChatCompletions, AdapterMessages}
	case TransportCLI:
		return []string{AdapterExec}
	case TransportPeer:
		return []string{AdapterPeer}
	}
	return nil
}

// DefaultCooldown is how long transient failures open a circuit when the
// declaration names no cooldown.
const DefaultCooldown = 10 * time.Minute

// Catalog is the merged set of declarations: the embedded share/ files with
// the overlays applied. Slices are in declaration order; Advisors is the
// preference order.
type Catalog struct {
	Advisors     []Declaration `json:"advisors"`
	Capabilities []Capability  `json:"capabilities"`
	Providers    []Provider    `json:"providers"`
	Vendors      []Vendor      `json:"vendors"`
	Profiles     []Profile     `json:"profiles"`
	// Repository is what trust records for the repository overlay as
	// read, "" when there is none: its SHA-256, or, when its exec
	// advisors' commands name files of the work tree, one hash over it
	// and RepositoryFiles (see coverFiles).
	Repository string `json:"-"`
	// RepositoryFiles are the work-tree files the repository overlay's
	// exec advisors run or read, which trust covers too.
	RepositoryFiles []CoveredFile `json:"-"`
	// Untrusted, when set, says what the untrusted repository overlay
	// declared that was ignored.
	Untrusted *Untrusted `json:"-"`
}

// Declaration is one advisor as declared (the contract of the advisors.yaml
// shape; fields are added, never renamed). Sources lists every file:line
// that contributed to it, the embedded one first, then overlays.
type Declaration struct {
	ID           string   `yaml:"id" json:"id"`
	Transport    string   `yaml:"transport" json:"transport"`
	Adapter      string   `yaml:"adapter" json:"adapter"`
	BaseURL      string   `yaml:"base_url" json:"base_url,omitempty"`
	Credential   string   `yaml:"credential" json:"credential,omitempty"`
	Executable   string   `yaml:"executable" json:"executable,omitempty"`
	Command      []string `yaml:"command" json:"command,omitempty"`
	Provider     string   `yaml:"provider" json:"provider,omitempty"`
	Vendor       string   `yaml:"vendor" json:"vendor,omitempty"`
	Model        string   `yaml:"model" json:"model,omitempty"`
	Capabilities []string `yaml:"capabilities" json:"capabilities"`
	Local        bool     `yaml:"local" json:"local"`
	Cooldown     Duration `yaml:"cooldown" json:"cooldown,omitempty"`
	// Timeout bounds one consultation of this advisor (default
	// DefaultTimeout); the consult run's own deadline may cut it shorter.
	Timeout Duration `yaml:"timeout" json:"timeout,omitempty"`
	// ContextBytes is how many bytes of question the advisor takes (default
	// per transport, see ContextBudget): the material is cut to fit.
	ContextBytes int `yaml:"context_bytes" json:"context_bytes,omitempty"`
	// ContextTokens states the budget as a model's token count instead;
	// it is turned into bytes at share/context.yaml's bytes_per_token,
	// and when both are declared the smaller budget holds.
	ContextTokens int `yaml:"context_tokens" json:"context_tokens,omitempty"`
	// PeerAdvisor names, for a peer, the advisor at the peer to ask; the
	// peer asks its first available advisor when it is empty.
	PeerAdvisor string `yaml:"peer_advisor" json:"peer_advisor,omitempty"`
	// AnswersPeers lets an exec advisor answer peers' questions (git
	// reason serve): it runs a command on this machine, which may read
	// this machine's files, so only a declaration that says so lets a
	// peer's question reach it (see MayAnswerPeers).
	AnswersPeers bool `yaml:"answers_peers" json:"answers_peers,omitempty"`
	// Workdir says where an exec advisor's command runs: WorkdirRepository
	// (the default, "") or WorkdirEmpty (see RunsInEmptyDir).
	Workdir string `yaml:"workdir" json:"workdir,omitempty"`
	// Headers are extra HTTP headers a wire format needs (a version header,
	// say): data, so that no code spells a vendor's header.
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// AuthHeader and AuthScheme say how the credential is sent; the default
	// is "Authorization: Bearer <value>".
	AuthHeader string   `yaml:"auth_header" json:"auth_header,omitempty"`
	AuthScheme *string  `yaml:"auth_scheme" json:"auth_scheme,omitempty"`
	Sources    []string `yaml:"-" json:"sources,omitempty"`
	// Dir is where an exec advisor's command runs: the work tree's top
	// for one the trusted repository overlay declares (what it runs, and
	// the files trust covers, are named from there); "" is where git
	// reason runs.
	Dir string `yaml:"-" json:"-"`
	// Covered are the work-tree files its command names, as trust
	// covered them: each is read again before the command runs, which
	// does not run when one differs.
	Covered []CoveredFile `yaml:"-" json:"-"`
}

// executablePath is the executable whose presence says the advisor is
// installed: a relative path (with a separator) is from the directory its
// command runs in.
func (d Declaration) executablePath() string {
	if d.Dir == "" || filepath.Base(d.Executable) == d.Executable || filepath.IsAbs(d.Executable) {
		return d.Executable
	}
	return filepath.Join(d.Dir, d.Executable)
}

// MayAnswerPeers reports whether serve may ask the advisor a peer's
// question. An advisor reached over HTTP (api, local_runtime) reads no
// file of this machine and may; an exec advisor runs a command here, often
// an agent that can read files, and may only when its declaration sets
// answers_peers (then it runs in an empty directory: AskForPeer); a peer
// never is, so that two servers never ask each other in a loop.
func (d Declaration) MayAnswerPeers() bool {
	return d.Transport != TransportPeer && d.Adapter != AdapterPeer && (d.Adapter != AdapterExec || d.AnswersPeers)
}

// RunsInEmptyDir reports whether the advisor's command runs in an empty
// temporary directory rather than where git reason runs: an exec advisor
// whose declaration says workdir: empty.
func (d Declaration) RunsInEmptyDir() bool {
	return d.Adapter == AdapterExec && d.Workdir == WorkdirEmpty
}

// DefaultTimeout bounds one consultation when the declaration sets none.
const DefaultTimeout = 2 * time.Minute

// TimeoutOrDefault is the declared timeout, or DefaultTimeout.
func (d Declaration) TimeoutOrDefault() time.Duration {
	if d.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(d.Timeout)
}

// CooldownOrDefault is the declared cooldown, or DefaultCooldown when none
// (or a non-positive one) is declared.
func (d Declaration) CooldownOrDefault() time.Duration {
	if d.Cooldown <= 0 {
		return DefaultCooldown
	}
	return time.Duration(d.Cooldown)
}

// Capability is one entry of the capability vocabulary.
type Capability struct {
	ID          string   `yaml:"id" json:"id"`
	Description string   `yaml:"description" json:"description,omitempty"`
	Sources     []string `yaml:"-" json:"sources,omitempty"`
}

// Provider is a service or client tool through which advisors are reached.
type Provider struct {
	ID          string   `yaml:"id" json:"id"`
	Name        string   `yaml:"name" json:"name,omitempty"`
	Description string   `yaml:"description" json:"description,omitempty"`
	Sources     []string `yaml:"-" json:"sources,omitempty"`
}

// Vendor is a maker of models, with the models advisors may refer to.
type Vendor struct {
	ID          string   `yaml:"id" json:"id"`
	Name        string   `yaml:"name" json:"name,omitempty"`
	Description string   `yaml:"description" json:"description,omitempty"`
	Models      []Model  `yaml:"models" json:"models"`
	Sources     []string `yaml:"-" json:"sources,omitempty"`
}

// Model is one model of a vendor; its id is unique within the vendor.
type Model struct {
	ID          string `yaml:"id" json:"id"`
	Name        string `yaml:"name" json:"name,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
}

// Profile is an execution profile and the mode it declares.
type Profile struct {
	ID          string      `yaml:"id" json:"id"`
	Mode        policy.Mode `yaml:"mode" json:"mode"`
	Description string      `yaml:"description" json:"description,omitempty"`
	Sources     []string    `yaml:"-" json:"sources,omitempty"`
}

// Policy is the profile as package policy takes it.
func (p Profile) Policy() policy.Profile { return policy.Profile{Name: p.ID, Mode: p.Mode} }

// Duration is a cooldown, written in YAML and JSON as a Go duration string
// ("10m", "90s").
type Duration time.Duration

// String renders the duration as Go does ("10m0s").
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText renders the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a Go duration string; anything else is an error.
// The error does not quote the text: it may come from a file that is not
// what it seems (a symbolic link to a credentials file, say).
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return errors.New("not a duration like 10m or 90s")
	}
	*d = Duration(v)
	return nil
}

// Advisor returns the declaration with the given id.
func (c *Catalog) Advisor(id string) (Declaration, bool) {
	for _, d := range c.Advisors {
		if d.ID == id {
			return d, true
		}
	}
	return Declaration{}, false
}

// Profile returns the profile with the given id.
func (c *Catalog) Profile(id string) (Profile, bool) {
	for _, p := range c.Profiles {
		if p.ID == id {
			return p, true
		}
	}
	return Profile{}, false
}

// HasCapability reports whether the vocabulary declares the capability, so
// the writer can reject an assessment that needs an undeclared one.
func (c *Catalog) HasCapability(id string) bool {
	for i, k := range c.Capabilities {
		if k.ID == id {
			idReads.Add(int64(i + 1))
			return true
		}
	}
	idReads.Add(int64(len(c.Capabilities)))
	return false
}

// Name is a name that provider-neutral files must not spell, and the
// declaration it comes from (e.g. "vendor fixvendor"). Its fields match the
// neutrality checker's terms.
type Name struct {
	Name       string `json:"name"`
	DeclaredAs string `json:"declared_as"`
}

// Names lists every name the catalog declares for an advisor, provider,
// vendor or model: ids, display names, and the executables whose names are a
// product's name. Each name appears once, with its first declaration.
func (c *Catalog) Names() []Name {
	var out []Name
	seen := map[string]bool{}
	add := func(name, as string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, Name{Name: name, DeclaredAs: as})
		}
	}
	for _, d := range c.Advisors {
		add(d.ID, "advisor "+d.ID)
		if d.Executable != "" {
			add(filepath.Base(d.Executable), "executable of advisor "+d.ID)
		}
	}
	for _, p := range c.Providers {
		add(p.ID, "provider "+p.ID)
		add(p.Name, "name of provider "+p.ID)
	}
	for _, v := range c.Vendors {
		add(v.ID, "vendor "+v.ID)
		add(v.Name, "name of vendor "+v.ID)
		for _, m := range v.Models {
			add(m.ID, "model "+m.ID+" of vendor "+v.ID)
			add(m.Name, "name of model "+m.ID+" of vendor "+v.ID)
		}
	}
	return out
}
