package settings

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// errAskGit says the in-process reader met something it does not read
// exactly as git would (a file git refuses, an include loop, a form this
// reader leaves out); Load then runs git config, which reads it, or says
// what is wrong, in git's own words.
var errAskGit = errors.New("configuration left to git")

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH: deeper nesting (an include
// loop) is an error.
const maxIncludeDepth = 10

// maxVariables bounds the variables one reading passes on, includes
// counted each time they are taken. The depth limit stops a loop, not a
// file that includes another a thousand times, each of which does the
// same: git would list such a configuration without end, so neither the
// reader nor git is left to read it.
const maxVariables = 1 << 18

var errTooManyVariables = fmt.Errorf("read git config: more than %d variables (an include.path repeated many times over?); fix the configuration", maxVariables)

// cfgReader reads the configuration git's commands see, in git's order
// (config.c, do_git_config_sequence): the system file, the global files
// (XDG, then ~/.gitconfig), the repository's config, its config.worktree
// when extensions.worktreeConfig is on, then the command line
// (GIT_CONFIG_COUNT, then GIT_CONFIG_PARAMETERS). include.path and
// includeIf are followed where they appear, their variables taking the
// including file's scope, after the include variable itself, as git
// config --list shows them.
type cfgReader struct {
	env    func(string) (string, bool)
	gitDir string // "" outside a repository
	items  []item
	depth  int
	files  map[string][]rawVar // each file parsed once
	seen   int                 // variables passed on, for maxVariables

	// hasconfig:remote.*.url: git reads the whole configuration once more
	// to learn the remote URLs, taking every hasconfig include on the way
	// (collecting), and refuses a URL set in a file a condition included
	// (forbid > 0).
	collecting bool
	forbid     int
	urls       *[]string

	branch     string // the branch HEAD names, for onbranch:
	branchRead bool
	// coreWorktree: the repository sets core.worktree, with which git
	// may take the git directory by its real path alone.
	coreWorktree bool
}

// readConfig returns what `git --git-dir=gitDir config -z --list
// --show-scope` lists (gitDir "" outside a repository), or errAskGit.
func readConfig(gitDir string, env func(string) (string, bool)) ([]item, error) {
	if gitDir != "" && !filepath.IsAbs(gitDir) {
		return nil, errAskGit
	}
	r := &cfgReader{env: env, gitDir: gitDir, files: map[string][]rawVar{}}
	if err := r.sequence(); err != nil {
		return nil, err
	}
	return r.items, nil
}

func (r *cfgReader) sequence() error {
	noSystem := false
	if v, set := r.env("GIT_CONFIG_NOSYSTEM"); set {
		b, ok := maybeBool(entry{value: v, hasValue: true})
		if !ok {
			return errAskGit // git refuses a value it cannot read as a boolean
		}
		noSystem = b
	}
	if !noSystem {
		path, err := r.systemFile()
		if err != nil {
			return err
		}
		if err := r.topFile(path, "system"); err != nil {
			return err
		}
	}

	user, xdg, err := r.globalFiles()
	if err != nil {
		return err
	}
	for _, p := range []string{xdg, user} {
		if err := r.topFile(p, "global"); err != nil {
			return err
		}
	}

	if r.gitDir != "" {
		if _, set := r.env("GIT_COMMON_DIR"); set {
			return errAskGit
		}
		common, err := commonDirOf(r.gitDir)
		if err != nil {
			return err
		}
		worktreeConfig, err := r.worktreeConfigOn(filepath.Join(common, "config"))
		if err != nil {
			return err
		}
		if err := r.topFile(filepath.Join(common, "config"), "local"); err != nil {
			return err
		}
		if worktreeConfig {
			if err := r.topFile(filepath.Join(r.gitDir, "config.worktree"), "worktree"); err != nil {
				return err
			}
		}
	}
	return r.commandLine()
}

// systemFile is the system file git reads: GIT_CONFIG_SYSTEM, else
// $(prefix)/etc/gitconfig, which is /etc/gitconfig for git built with
// prefix /usr (git's Makefile puts sysconfdir at /etc then), as every
// Linux distribution builds it. Where git was built otherwise, or the
// git found is not in /usr, the reader cannot know the file: git is asked.
func (r *cfgReader) systemFile() (string, error) {
	if v, set := r.env("GIT_CONFIG_SYSTEM"); set {
		if v != "" && !filepath.IsAbs(v) {
			return "", errAskGit
		}
		return v, nil
	}
	if runtime.GOOS != "linux" {
		return "", errAskGit
	}
	usrDirs := map[string]bool{"/usr/bin": true, "/usr/lib/git-core": true, "/usr/libexec/git-core": true}
	if v, set := r.env("GIT_EXEC_PATH"); set && !usrDirs[filepath.Clean(v)] {
		return "", errAskGit
	}
	path, _ := r.env("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			return "", errAskGit
		}
		p := filepath.Join(dir, "git")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !usrDirs[filepath.Dir(real)] {
			return "", errAskGit
		}
		return "/etc/gitconfig", nil
	}
	return "", errAskGit
}

// globalFiles are ~/.gitconfig and $XDG_CONFIG_HOME/git/config (else
// ~/.config/git/config), or GIT_CONFIG_GLOBAL alone when it is set.
func (r *cfgReader) globalFiles() (user, xdg string, err error) {
	if v, set := r.env("GIT_CONFIG_GLOBAL"); set {
		if v != "" && !filepath.IsAbs(v) {
			return "", "", errAskGit
		}
		return v, "", nil
	}
	home, hasHome := r.env("HOME")
	if hasHome && home != "" && !filepath.IsAbs(home) {
		return "", "", errAskGit
	}
	if hasHome {
		user = home + "/.gitconfig"
	}
	if x, _ := r.env("XDG_CONFIG_HOME"); x != "" {
		if !filepath.IsAbs(x) {
			return "", "", errAskGit
		}
		xdg = x + "/git/config"
	} else if hasHome {
		xdg = home + "/.config/git/config"
	}
	return user, xdg, nil
}

// commonDirOf is the repository's common directory: the one its
// commondir file names (a linked worktree), else gitDir itself.
func commonDirOf(gitDir string) (string, error) {
	data, err := readRegular(filepath.Join(gitDir, "commondir"), maxRefBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", errAskGit
	}
	s := strings.TrimRight(string(data), "\r\n")
	if s == "" {
		return "", errAskGit
	}
	if !filepath.IsAbs(s) {
		s = gitDir + "/" + s
	}
	real, err := filepath.EvalSymlinks(s)
	if err != nil {
		return "", errAskGit
	}
	return real, nil
}

// worktreeConfigOn reads the repository format as git's setup does (the
// common config file alone, no includes): config.worktree is read when
// core.repositoryFormatVersion is set and extensions.worktreeConfig is
// true. A format git would refuse, or treat the directory as no
// repository for, is left to git.
func (r *cfgReader) worktreeConfigOn(path string) (bool, error) {
	vars, err := r.parsed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	version, hasVersion, worktree := "", false, false
	for _, v := range vars {
		switch {
		case v.key == "core.repositoryformatversion":
			version, hasVersion = v.value, true
			if !v.hasValue {
				return false, errAskGit
			}
		case v.key == "core.worktree":
			r.coreWorktree = true
		case v.key == "extensions.worktreeconfig":
			b, ok := maybeBool(entry{value: v.value, hasValue: v.hasValue})
			if !ok {
				return false, errAskGit
			}
			worktree = b
		case strings.HasPrefix(v.key, "extensions."):
			switch strings.TrimPrefix(v.key, "extensions.") {
			case "noop", "preciousobjects", "partialclone", "noop-v1", "objectformat":
			default:
				return false, errAskGit // git 2.39 refuses it in a version 1 repository
			}
		}
	}
	if !hasVersion {
		return false, nil
	}
	if version != "0" && version != "1" {
		return false, errAskGit
	}
	return worktree, nil
}

// parsed reads and parses the file at path once; a missing file is
// fs.ErrNotExist, anything else git might read differently errAskGit.
func (r *cfgReader) parsed(path string) ([]rawVar, error) {
	if vars, ok := r.files[path]; ok {
		return vars, nil
	}
	data, err := readRegular(path, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, fs.ErrNotExist
	}
	if err != nil {
		return nil, errAskGit
	}
	vars, ok := parseConfig(data)
	if !ok {
		return nil, errAskGit
	}
	r.files[path] = vars
	return vars, nil
}

// maxConfigBytes bounds a config file read in-process; a larger one is
// left to git.
const maxConfigBytes = 4 << 20

// maxRefBytes bounds the small files the reader reads beside the
// configuration (HEAD, a branch ref, commondir).
const maxRefBytes = 64 << 10

// readRegular reads a regular file of at most limit bytes. Anything
// else (a directory, a FIFO, a device such as /dev/zero that a repository's
// include.path could name) is an error: git is asked, and reads it as git
// does, rather than this process reading without end. The file is checked
// before it is opened, and opened without blocking, so that a FIFO (whose
// open waits for a writer) or a device is never waited on or opened.
func readRegular(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errAskGit
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errAskGit
	}
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > limit {
			return nil, errAskGit
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// topFile reads one of the sequence's files; "" or a missing file adds
// nothing, as git skips what it cannot access.
func (r *cfgReader) topFile(path, scope string) error {
	if path == "" {
		return nil
	}
	return r.file(path, scope)
}

func (r *cfgReader) file(path, scope string) error {
	vars, err := r.parsed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, v := range vars {
		if err := r.variable(v, scope, path); err != nil {
			return err
		}
	}
	return nil
}

// variable passes one variable on, then follows it when it is an include;
// file is the file it was read from, "" for the command line.
func (r *cfgReader) variable(v rawVar, scope, file string) error {
	if r.seen++; r.seen > maxVariables {
		return errTooManyVariables
	}
	if isRemoteURL(v.key) {
		if r.forbid > 0 {
			return errAskGit // git refuses a remote URL set where hasconfig:remote.*.url could include it
		}
		if r.collecting {
			if !v.hasValue {
				return errAskGit
			}
			*r.urls = append(*r.urls, v.value)
		}
	}
	if !r.collecting {
		r.items = append(r.items, item{scope: scope, key: v.key, value: v.value, hasValue: v.hasValue})
	}
	if v.key == "include.path" {
		return r.include(v, scope, file)
	}
	rest, ok := strings.CutPrefix(v.key, "includeif.")
	if !ok {
		return nil
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 || rest[dot+1:] != "path" {
		return nil
	}
	on, err := r.condition(rest[:dot], file)
	if err != nil || !on {
		return err
	}
	if r.collecting {
		r.forbid++
		defer func() { r.forbid-- }()
	}
	return r.include(v, scope, file)
}

func isRemoteURL(key string) bool {
	rest, ok := strings.CutPrefix(key, "remote.")
	dot := strings.LastIndexByte(rest, '.')
	return ok && dot >= 0 && rest[dot+1:] == "url"
}

// include reads the file an include variable names: "~/" is $HOME, a
// relative path is relative to the including file's directory, a missing
// file is skipped; nesting deeper than git allows is left to git.
func (r *cfgReader) include(v rawVar, scope, file string) error {
	if !v.hasValue || v.value == "" {
		return errAskGit
	}
	path, err := r.interpolate(v.value)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(path) {
		if file == "" {
			return errAskGit // git refuses a relative include from the command line
		}
		path = file[:strings.LastIndexByte(file, '/')+1] + path
	}
	if _, err := r.parsed(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if r.depth++; r.depth > maxIncludeDepth {
		return errAskGit
	}
	defer func() { r.depth-- }()
	return r.file(path, scope)
}

// interpolate expands a leading "~" or "~/" to $HOME, as git's
// interpolate_path does; "~user" and "%(prefix)/" are left to git.
func (r *cfgReader) interpolate(path string) (string, error) {
	if strings.HasPrefix(path, "%(prefix)/") {
		return "", errAskGit
	}
	if path == "" || path[0] != '~' {
		return path, nil
	}
	if len(path) > 1 && path[1] != '/' {
		return "", errAskGit
	}
	home, ok := r.env("HOME")
	if !ok {
		return "", errAskGit
	}
	return home + path[1:], nil
}

// condition evaluates includeIf's condition; unknown conditions are false,
// as in git.
func (r *cfgReader) condition(cond, file string) (bool, error) {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return r.byGitDir(strings.TrimPrefix(cond, "gitdir:"), false, file)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return r.byGitDir(strings.TrimPrefix(cond, "gitdir/i:"), true, file)
	case strings.HasPrefix(cond, "onbranch:"):
		return r.onBranch(strings.TrimPrefix(cond, "onbranch:"))
	case strings.HasPrefix(cond, "hasconfig:remote.*.url:"):
		return r.hasRemoteURL(strings.TrimPrefix(cond, "hasconfig:remote.*.url:"))
	}
	return false, nil
}

// byGitDir is gitdir: and gitdir/i:, as git's include_by_gitdir: "~/" is
// the real path of $HOME, "./" the real directory of the including file
// (matched literally), a relative pattern is prefixed with "**/" and one
// ending in "/" suffixed with "**"; the pattern is matched against the
// real path of the git directory, then against the path as given.
func (r *cfgReader) byGitDir(pat string, icase bool, file string) (bool, error) {
	if r.gitDir == "" {
		return false, nil
	}
	if strings.HasPrefix(pat, "%(prefix)/") {
		return false, errAskGit
	}
	if strings.HasPrefix(pat, "~") {
		if len(pat) > 1 && pat[1] != '/' {
			return false, errAskGit
		}
		home, ok := r.env("HOME")
		if !ok {
			return false, errAskGit
		}
		real, err := filepath.EvalSymlinks(home)
		if err != nil {
			return false, errAskGit
		}
		pat = real + pat[1:]
	}
	prefix := 0
	if strings.HasPrefix(pat, "./") {
		if file == "" {
			return false, errAskGit
		}
		real, err := filepath.EvalSymlinks(file)
		if err != nil {
			return false, errAskGit
		}
		dir := real[:strings.LastIndexByte(real, '/')]
		pat = dir + pat[1:]
		prefix = len(dir) + 1
	} else if !filepath.IsAbs(pat) {
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	real, err := filepath.EvalSymlinks(r.gitDir)
	if err != nil || r.coreWorktree && real != r.gitDir {
		return false, errAskGit
	}
	for _, text := range []string{real, r.gitDir} {
		if prefix > 0 {
			if len(text) < prefix {
				return false, nil
			}
			a, b := pat[:prefix], text[:prefix]
			if icase && asciiLower(a) != asciiLower(b) || !icase && a != b {
				return false, nil
			}
		}
		m, ok := wildmatch(pat[prefix:], text[prefix:], true, icase)
		if !ok {
			return false, errAskGit
		}
		if m {
			return true, nil
		}
	}
	return false, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lower(c)
	}
	return string(b)
}

// onBranch is onbranch:, matched against the branch HEAD names (none when
// detached), a pattern ending in "/" suffixed with "**".
func (r *cfgReader) onBranch(pat string) (bool, error) {
	if r.gitDir == "" {
		return false, nil
	}
	if !r.branchRead {
		b, err := headBranch(r.gitDir)
		if err != nil {
			return false, err
		}
		r.branch, r.branchRead = b, true
	}
	if r.branch == "" {
		return false, nil
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	m, ok := wildmatch(pat, r.branch, true, false)
	if !ok {
		return false, errAskGit
	}
	return m, nil
}

// headBranch is the branch HEAD names, without refs/heads/; "" when HEAD
// is detached or names no branch. What git's resolve_ref_unsafe could
// read otherwise is left to git: a HEAD that is a symbolic link, a name
// check_refname_format refuses, a branch ref that is not a regular file
// holding an object name (a symbolic ref, a symbolic link, a FIFO, a
// corrupt file). A branch with no loose ref (unborn, or packed) is the
// branch, as for git.
func headBranch(gitDir string) (string, error) {
	head := filepath.Join(gitDir, "HEAD")
	fi, err := os.Lstat(head)
	if err != nil || !fi.Mode().IsRegular() {
		return "", errAskGit
	}
	data, err := readRegular(head, maxRefBytes)
	if err != nil {
		return "", errAskGit
	}
	ref, ok := strings.CutPrefix(string(data), "ref:")
	if !ok {
		return "", nil
	}
	ref = strings.TrimRight(strings.TrimLeft(ref, " \t\n\r"), " \t\n\r")
	branch, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return "", nil
	}
	if !plainBranchName(branch) {
		return "", errAskGit
	}
	common, err := commonDirOf(gitDir)
	if err != nil {
		return "", err
	}
	path := filepath.Join(common, ref)
	fi, err = os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return branch, nil
	case err != nil:
		return "", errAskGit
	case fi.IsDir():
		return branch, nil // git takes the branch as not yet created
	case !fi.Mode().IsRegular():
		return "", errAskGit
	}
	target, err := readRegular(path, maxRefBytes)
	if err != nil || !isObjectName(target) {
		return "", errAskGit
	}
	return branch, nil
}

// plainBranchName reports whether refs/heads/<name> passes git's
// check_refname_format: no empty component, none starting with "." or
// ending in ".lock", no "..", "@{", control character or any of
// ` ~^:?*[\`, no "." at the end, not "@".
func plainBranchName(name string) bool {
	if name == "" || name == "@" || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return false
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

// isObjectName reports whether a loose ref's content is an object name
// (SHA-1 hex; a SHA-256 repository's refs are left to git) followed by
// nothing or whitespace, as git's parse_loose_ref_contents takes it.
func isObjectName(b []byte) bool {
	n := 0
	for n < len(b) && ('0' <= b[n] && b[n] <= '9' || 'a' <= b[n] && b[n] <= 'f' || 'A' <= b[n] && b[n] <= 'F') {
		n++
	}
	return n == 40 && (n == len(b) || isSpace(b[n]))
}

// hasRemoteURL is hasconfig:remote.*.url:, true when any remote.<name>.url
// in the whole configuration matches the pattern (no pathname rule). The
// URLs come from a second reading of the configuration that takes every
// such include, as git's does.
func (r *cfgReader) hasRemoteURL(pat string) (bool, error) {
	if r.collecting {
		return true, nil
	}
	if r.urls == nil {
		urls := []string{}
		c := &cfgReader{env: r.env, gitDir: r.gitDir, files: r.files, collecting: true, urls: &urls,
			branch: r.branch, branchRead: r.branchRead, coreWorktree: r.coreWorktree}
		if err := c.sequence(); err != nil {
			return false, err
		}
		r.urls = &urls
	}
	for _, u := range *r.urls {
		m, ok := wildmatch(pat, u, false, false)
		if !ok {
			return false, errAskGit
		}
		if m {
			return true, nil
		}
	}
	return false, nil
}

// commandLine reads `git -c` settings as git passes them to a subcommand:
// GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> first,
// then GIT_CONFIG_PARAMETERS.
func (r *cfgReader) commandLine() error {
	if v, set := r.env("GIT_CONFIG_COUNT"); set {
		n := 0
		if v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n < 0 || strings.TrimLeft(v, "0123456789") != "" || n > 1<<20 {
				return errAskGit
			}
		}
		for i := range n {
			key, ok := r.env("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			if !ok {
				return errAskGit
			}
			value, ok := r.env("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			if !ok {
				return errAskGit
			}
			if err := r.pair(key, value, true); err != nil {
				return err
			}
		}
	}
	params, _ := r.env("GIT_CONFIG_PARAMETERS")
	for cur := params; cur != ""; {
		key, rest, ok := sqDequoteStep(cur)
		if !ok {
			return errAskGit
		}
		switch {
		case rest == "" || isSpace(rest[0]):
			// old style 'key=value'
			k, val, hasValue := strings.Cut(key, "=")
			k = strings.Trim(k, " \t\n\r")
			if k == "" {
				return errAskGit
			}
			if err := r.pair(k, val, hasValue); err != nil {
				return err
			}
		case rest[0] == '=':
			rest = rest[1:]
			var value string
			hasValue := false
			switch {
			case rest != "" && rest[0] == '\'':
				if value, rest, ok = sqDequoteStep(rest); !ok || rest != "" && !isSpace(rest[0]) {
					return errAskGit
				}
				hasValue = true
			case rest == "" || isSpace(rest[0]):
			default:
				return errAskGit
			}
			if err := r.pair(key, value, hasValue); err != nil {
				return err
			}
		default:
			return errAskGit
		}
		cur = strings.TrimLeft(rest, " \t\n\r")
	}
	return nil
}

func (r *cfgReader) pair(key, value string, hasValue bool) error {
	k, ok := canonicalKey(key)
	if !ok {
		return errAskGit
	}
	return r.variable(rawVar{key: k, value: value, hasValue: hasValue}, "command", "")
}

// sqDequoteStep takes one single-quoted word from the start of s, as git's
// sq_dequote_step: '\” and '\!' between quoted parts stand for themselves.
// rest is what follows the word's closing quote.
func sqDequoteStep(s string) (word, rest string, ok bool) {
	if s == "" || s[0] != '\'' {
		return "", "", false
	}
	var b strings.Builder
	i := 1
	for {
		if i >= len(s) {
			return "", "", false
		}
		c := s[i]
		if c != '\'' {
			b.WriteByte(c)
			i++
			continue
		}
		i++ // past the closing quote
		if i+2 < len(s) && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') && s[i+2] == '\'' {
			b.WriteByte(s[i+1])
			i += 3
			continue
		}
		return b.String(), s[i:], true
	}
}
