package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"git-reason/gitstore"
)

// Settings is everything git reason takes from git configuration and the
// environment, with every override applied. The zero value is what a
// repository without configuration and an empty environment give, except
// that Color is "" rather than ColorAuto.
type Settings struct {
	// Profile names the execution profile and what named it.
	Profile Choice
	// Disabled lists advisor ids switched off: GIT_REASON_DISABLE when
	// set (even empty, which re-enables every advisor for one run), else
	// reason.disable; comma- or space-separated, duplicates dropped.
	Disabled []string
	// DisabledFromEnv: Disabled is GIT_REASON_DISABLE's, which git -c
	// reason.disable cannot change.
	DisabledFromEnv bool
	// Origin is this clone's id (reason.origin); "" until the first write
	// records one with SetOrigin.
	Origin string
	// HooksPath is core.hooksPath as written ("" when unset); relative
	// paths are relative to the work tree's top, as git reads them.
	HooksPath string
	// SharedRepository is core.sharedRepository, as git reads it: the
	// permissions of the objects and refs a write creates.
	SharedRepository gitstore.SharedPerm
	// LogAllRefs is core.logAllRefUpdates set to always: a task ref
	// without a log gets one when git reason moves it (git's default,
	// true, logs only branches, remote-tracking refs, notes and HEAD).
	LogAllRefs bool
	// CommentChar is core.commentChar: what starts a comment line of a
	// commit message ("#" when unset, empty, "auto" or written without a
	// value, as the commit hooks read it).
	CommentChar string
	// Actor is who writes records: author and committer of their commits.
	Actor Identity
	// Pager is how long output of git reason is paged on a terminal.
	Pager Pager
	// Color says whether output is coloured on a terminal.
	Color Color
	// Remotes are the configured remotes, by name: every remote with a
	// remote.<name>.url, remote.<name>.pushurl or remote.<name>.vcs, as
	// git counts a remote (URL empty without the first), with its fetch
	// refspecs (remote.<name>.fetch).
	Remotes map[string]Remote
	// Upstreams maps a branch to the remote it tracks (branch.<name>.remote).
	Upstreams map[string]string
	// PushRemotes maps a branch to the remote it pushes to
	// (branch.<name>.pushRemote); PushDefault is remote.pushDefault.
	PushRemotes map[string]string
	PushDefault string
	// BranchTasks maps a branch to the task a verb run there without TASK
	// works on (branch.<name>.reasonTask); a branch without one uses its
	// own name.
	BranchTasks map[string]string
	// ConfigDir is git reason's directory in the user's configuration
	// ($XDG_CONFIG_HOME/git-reason, else $HOME/.config/git-reason; "" when
	// neither is set): the user overlay advisors.yaml lives there.
	ConfigDir string
	// Signing is how record commits are signed and verified (signing.go).
	Signing Signing
	// Travel is how reasoning rides on git push, and what a hosted
	// repository's hook lets through (travel.go).
	Travel Travel
	// NeverSend are the globs of files never read for an advisor's
	// question (reason.neverSend, several values): DefaultNeverSend, then
	// each value's globs (separated by commas or spaces); an empty value
	// clears those before it.
	NeverSend []string
	// MaxBytesPerConsult caps the bytes of questions one consult run
	// sends, all its advisors together (reason.maxBytesPerConsult, an
	// integer with an optional k, m or g); a run over it sends nothing.
	MaxBytesPerConsult int64
	// MCPConsults is how many consult calls one client of git reason mcp
	// may have under way at once (reason.mcpConsults, a positive integer).
	MCPConsults int
	// MaxTaskBytes and MaxPullBytes bound what reading fetched histories
	// may read, in record bytes: one task's (reason.maxTaskBytes), one
	// pull's (reason.maxPullBytes).
	MaxTaskBytes, MaxPullBytes int64
	// PromisorRemotes are the promisor remotes of a partial clone, in the
	// order git asks them for a missing object (gitstore.PromisorRemotes):
	// extensions.partialClone's, then each remote.<name>.promisor set
	// true, in configuration order. None outside a partial clone.
	PromisorRemotes []string

	files Watch // what Changed compares
}

// DefaultNeverSend are the never-send globs before any configuration:
// environment files, keys and certificates in PEM form, private keys.
var DefaultNeverSend = []string{".env*", "*.pem", "id_*", "*.key"}

// DefaultMaxBytesPerConsult is reason.maxBytesPerConsult when unset: 8 MiB,
// room for every shipped advisor's default budget at once.
const DefaultMaxBytesPerConsult = 8 << 20

// DefaultMCPConsults is reason.mcpConsults when unset.
const DefaultMCPConsults = 4

// Remote is one configured remote.
type Remote struct {
	URL   string   // the last remote.<name>.url
	Fetch []string // every remote.<name>.fetch, in order
}

// Choice is the execution profile named for this run.
type Choice struct {
	Name string // the profile's id
	By   string // "--profile", "GIT_REASON_PROFILE", "reason.profile", "CI" or "default"
}

// Identity is a person as git writes them in a commit.
type Identity struct {
	Name, Email string
}

// String is "Name <email>", or "" when either part is missing.
func (i Identity) String() string {
	if i.Name == "" || i.Email == "" {
		return ""
	}
	return i.Name + " <" + i.Email + ">"
}

// Pager is the pager git would use for the git reason command.
type Pager struct {
	// Command is the pager to run, "" for none: GIT_PAGER, else pager.reason
	// when it names a command, else core.pager, else PAGER, else "less";
	// "cat" or an empty value means none, as in git.
	Command string
	// Reason is pager.reason read as a boolean: nil when it is unset or
	// names a command (the command then pages git reason by default).
	Reason *bool
	// Plain is color.pager set false: output going to a pager is not
	// coloured under auto (git colours it by default, as on a terminal).
	Plain bool
}

// Color is when output is coloured.
type Color string

// The values of Color.
const (
	ColorAuto   Color = "auto"   // on a terminal only
	ColorAlways Color = "always" // even in a pipe
	ColorNever  Color = "never"
)

// Flags are the command-line options that override a setting.
type Flags struct {
	Profile string // --profile
}

// The keys resolve reads, as git lists them (section and variable name
// lowercased). docs/CONFIGURATION.md spells them as git's documentation does.
const (
	keyProfile   = "reason.profile"
	keyDisable   = "reason.disable"
	keyOrigin    = "reason.origin"
	keyHooksPath = "core.hookspath"
	keyComment   = "core.commentchar"
	keyShared    = "core.sharedrepository"
	keyLogAll    = "core.logallrefupdates"
	keyUserName  = "user.name"
	keyUserMail  = "user.email"
	keyAuthName  = "author.name"
	keyAuthMail  = "author.email"
	keyCorePager = "core.pager"
	keyPager     = "pager.reason"
	keyColorUI   = "color.ui"
	keyColor     = "color.reason"
	keyColorPage = "color.pager"
	keyNeverSend = "reason.neversend"
	keyMaxBytes  = "reason.maxbytesperconsult"
	keyConsults  = "reason.mcpconsults"
	keyPushDef   = "remote.pushdefault"
)

// Keys with a subsection, by section and variable name.
var (
	keyRemoteURL   = [2]string{"remote", "url"}
	keyRemoteFetch = [2]string{"remote", "fetch"}
	keyRemotePush  = [2]string{"remote", "pushurl"}
	keyRemoteVCS   = [2]string{"remote", "vcs"}
	keyUpstream    = [2]string{"branch", "remote"}
	keyPushRemote  = [2]string{"branch", "pushremote"}
	keyBranchTask  = [2]string{"branch", "reasontask"}
)

// source is what resolve reads: the configuration git listed and the
// environment. seen, when not nil, collects every key and variable asked
// for (the documentation test uses it).
type source struct {
	config    config
	lookupEnv func(string) (string, bool)
	seen      map[string]bool
}

func (s source) env(name string) (string, bool) {
	if s.seen != nil {
		s.seen[name] = true
	}
	return s.lookupEnv(name)
}

func (s source) getenv(name string) string {
	v, _ := s.env(name)
	return v
}

// bySubsection returns the values of section.<name>.variable for every
// subsection name, and records the key as "section.<name>.variable".
func (s source) bySubsection(key [2]string) map[string][]entry {
	section, variable := key[0], key[1]
	if s.seen != nil {
		s.seen[section+".<name>."+variable] = true
	}
	out := map[string][]entry{}
	for k, es := range s.config {
		rest, ok := strings.CutPrefix(k, section+".")
		if !ok {
			continue
		}
		if sub, ok := strings.CutSuffix(rest, "."+variable); ok && sub != "" {
			out[sub] = es
		}
	}
	return out
}

func (s source) entries(key string) []entry {
	if s.seen != nil {
		s.seen[key] = true
	}
	return s.config[key]
}

// str is the last value of a string key; a variable written without "="
// is an error there, as it is for git's own string keys.
func (s source) str(key string) (string, error) {
	es := s.entries(key)
	if len(es) == 0 {
		return "", nil
	}
	e := es[len(es)-1]
	if !e.hasValue {
		return "", fmt.Errorf("git config %s has no value: give it one (git config %s VALUE) or remove it (git config --unset %s)", key, key, key)
	}
	return e.value, nil
}

// resolve turns configuration and environment into Settings. It is the one
// place where an environment variable or a flag overrides configuration.
// Every key and variable is read whatever the others hold, so that the
// documentation test sees them all.
func resolve(src source, flags Flags) (*Settings, error) {
	var errs []error
	str := func(key string) string {
		v, err := src.str(key)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	s := &Settings{}

	profEnv, profCfg, ci := src.getenv("GIT_REASON_PROFILE"), str(keyProfile), src.getenv("CI")
	switch {
	case flags.Profile != "":
		s.Profile = Choice{flags.Profile, "--profile"}
	case profEnv != "":
		s.Profile = Choice{profEnv, "GIT_REASON_PROFILE"}
	case profCfg != "":
		s.Profile = Choice{profCfg, "reason.profile"}
	case isTrue(ci):
		s.Profile = Choice{"ci", "CI"}
	default:
		s.Profile = Choice{"default", "default"}
	}

	disCfg := str(keyDisable)
	if v, ok := src.env("GIT_REASON_DISABLE"); ok {
		s.Disabled, s.DisabledFromEnv = splitList(v), true
	} else {
		s.Disabled = splitList(disCfg)
	}

	s.Origin = str(keyOrigin)
	s.HooksPath = str(keyHooksPath)
	if es := src.entries(keyShared); len(es) > 0 {
		s.SharedRepository = gitstore.ParseSharedRepository(es[len(es)-1].value, es[len(es)-1].hasValue)
	}
	if es := src.entries(keyLogAll); len(es) > 0 {
		s.LogAllRefs = es[len(es)-1].hasValue && strings.EqualFold(es[len(es)-1].value, "always")
	}
	s.CommentChar = "#"
	if es := src.entries(keyComment); len(es) > 0 {
		if c := strings.TrimSpace(es[len(es)-1].value); c != "" && c != "auto" {
			s.CommentChar = c
		}
	}

	// Git's order for an author: GIT_AUTHOR_*, author.*, user.*, and EMAIL
	// for the address. The committer of a record's commit is the same
	// actor, so GIT_COMMITTER_* and committer.* play no part.
	s.Actor = Identity{
		Name:  withoutCrud(firstSet(src.getenv("GIT_AUTHOR_NAME"), str(keyAuthName), str(keyUserName))),
		Email: withoutCrud(firstSet(src.getenv("GIT_AUTHOR_EMAIL"), str(keyAuthMail), str(keyUserMail), src.getenv("EMAIL"))),
	}

	s.Pager = resolvePager(src, str)
	color, err := resolveColor(src)
	if err != nil {
		errs = append(errs, err)
	}
	s.Color = color

	s.Remotes = map[string]Remote{}
	fetch := src.bySubsection(keyRemoteFetch)
	urls := src.bySubsection(keyRemoteURL)
	for _, key := range [][2]string{keyRemoteURL, keyRemotePush, keyRemoteVCS} {
		for name := range src.bySubsection(key) {
			r := Remote{}
			if es := urls[name]; len(es) > 0 {
				r.URL = es[len(es)-1].value
			}
			for _, e := range fetch[name] {
				r.Fetch = append(r.Fetch, e.value)
			}
			s.Remotes[name] = r
		}
	}
	s.Upstreams = map[string]string{}
	for branch, es := range src.bySubsection(keyUpstream) {
		s.Upstreams[branch] = es[len(es)-1].value
	}
	s.PushRemotes = map[string]string{}
	for branch, es := range src.bySubsection(keyPushRemote) {
		s.PushRemotes[branch] = es[len(es)-1].value
	}
	s.PushDefault = str(keyPushDef)
	s.BranchTasks = map[string]string{}
	for branch, es := range src.bySubsection(keyBranchTask) {
		if v := strings.TrimSpace(es[len(es)-1].value); v != "" {
			s.BranchTasks[branch] = v
		}
	}

	xdg, home := src.getenv("XDG_CONFIG_HOME"), src.getenv("HOME")
	switch {
	case filepath.IsAbs(xdg):
		s.ConfigDir = filepath.Join(xdg, "git-reason")
	case home != "":
		s.ConfigDir = filepath.Join(home, ".config", "git-reason")
	}
	signing, err := resolveSigning(src, str, home)
	if err != nil {
		errs = append(errs, err)
	}
	s.Signing = signing
	if s.Travel, err = resolveTravel(src, str); err != nil {
		errs = append(errs, err)
	}
	if s.MaxTaskBytes, s.MaxPullBytes, err = resolveLimits(str); err != nil {
		errs = append(errs, err)
	}

	s.NeverSend = append([]string(nil), DefaultNeverSend...)
	for _, e := range src.entries(keyNeverSend) {
		if strings.TrimSpace(e.value) == "" {
			s.NeverSend = nil
		}
		s.NeverSend = append(s.NeverSend, splitList(e.value)...)
	}
	s.MaxBytesPerConsult = DefaultMaxBytesPerConsult
	if v := str(keyMaxBytes); v != "" {
		n, err := parseSize(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("git config %s %q: give a positive number of bytes, e.g. 4m", keyMaxBytes, v))
		}
		s.MaxBytesPerConsult = n
	}
	s.MCPConsults = DefaultMCPConsults
	if v := str(keyConsults); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("git config %s %q: give a positive integer, e.g. %d", keyConsults, v, DefaultMCPConsults))
		}
		s.MCPConsults = n
	}

	if len(errs) > 0 {
		return nil, badValue{errs[0]}
	}
	return s, nil
}

// ErrBadValue is wrapped by Load's error for a configuration value it
// refuses: bad input, as a bad flag is (ops makes it a usage error: exit
// 2 in every verb).
var ErrBadValue = errors.New("bad configuration value")

// badValue is a configuration value resolve refused, whose message names
// the key and what it takes.
type badValue struct{ error }

func (e badValue) Unwrap() error      { return e.error }
func (badValue) Is(target error) bool { return target == ErrBadValue }

// parseSize reads an integer as git's config does: an optional k, m or g
// multiplies it by 1024, 1024² or 1024³.
func parseSize(v string) (int64, error) {
	mult := int64(1)
	switch strings.ToLower(v[len(v)-1:]) {
	case "k":
		mult = 1 << 10
	case "m":
		mult = 1 << 20
	case "g":
		mult = 1 << 30
	}
	if mult > 1 {
		v = v[:len(v)-1]
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n > (1<<62)/mult {
		return 0, fmt.Errorf("not a size")
	}
	return n * mult, nil
}

// resolvePager follows git's pager.c: GIT_PAGER, the command's own
// pager.<cmd> when it is not a boolean, core.pager, PAGER, then less.
func resolvePager(src source, str func(string) string) Pager {
	var p Pager
	gitPager, ok := src.env("GIT_PAGER")
	core := str(keyCorePager)
	pagerEnv, pagerSet := src.env("PAGER")
	forCmd := ""
	if es := src.entries(keyPager); len(es) > 0 {
		e := es[len(es)-1]
		if b, isBool := maybeBool(e); isBool {
			p.Reason = &b
		} else {
			forCmd = e.value
		}
	}
	switch {
	case ok:
		p.Command = gitPager
	case forCmd != "":
		p.Command = forCmd
	case len(src.config[keyCorePager]) > 0:
		p.Command = core
	case pagerSet:
		p.Command = pagerEnv
	default:
		p.Command = "less"
	}
	if p.Command == "cat" {
		p.Command = ""
	}
	if es := src.entries(keyColorPage); len(es) > 0 {
		b, isBool := maybeBool(es[len(es)-1])
		p.Plain = isBool && !b
	}
	return p
}

// resolveColor reads color.reason, else color.ui, as git's colorbool does
// (true means auto), then lets NO_COLOR turn auto off (no-color.org: an
// explicit configuration still wins).
func resolveColor(src source) (Color, error) {
	noColor := src.getenv("NO_COLOR")
	ui, cmd := src.entries(keyColorUI), src.entries(keyColor)
	c := ColorAuto
	for _, k := range []struct {
		key string
		es  []entry
	}{{keyColorUI, ui}, {keyColor, cmd}} {
		if len(k.es) == 0 {
			continue
		}
		v, err := colorBool(k.es[len(k.es)-1])
		if err != nil {
			return "", fmt.Errorf("git config %s: %v: use always, auto, never, true or false", k.key, err)
		}
		c = v
	}
	if noColor != "" && c == ColorAuto {
		c = ColorNever
	}
	return c, nil
}

func colorBool(e entry) (Color, error) {
	switch strings.ToLower(e.value) {
	case "never":
		return ColorNever, nil
	case "always":
		return ColorAlways, nil
	case "auto":
		return ColorAuto, nil
	}
	b, ok := maybeBool(e)
	switch {
	case !ok:
		return "", fmt.Errorf("bad value %q", e.value)
	case b:
		return ColorAuto, nil
	}
	return ColorNever, nil
}

// maybeBool reads a value as git_config_maybe_bool does: a variable
// written without "=" is true; ok is false when the value is no boolean.
func maybeBool(e entry) (b, ok bool) {
	if !e.hasValue {
		return true, true
	}
	switch strings.ToLower(e.value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	if n, err := strconv.ParseInt(e.value, 10, 64); err == nil {
		return n != 0, true
	}
	return false, false
}

// isTrue reads CI as strconv.ParseBool does ("true", "1", …).
func isTrue(s string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return err == nil && b
}

func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// splitList splits a disable list as git config reason.disable or
// GIT_REASON_DISABLE spell it: ids separated by commas and/or whitespace.
// Empty items are dropped and repeats removed, order kept.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}
