package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Config is a snapshot of git configuration from every scope, merged in
// git's order. The zero value is an empty configuration.
type Config struct {
	vals map[string][]string // canonical key → values, earliest first
}

// maxIncludeDepth matches git's limit on nested include.path.
const maxIncludeDepth = 10

// Config reads system, global, repository and worktree configuration and the
// GIT_CONFIG_COUNT / GIT_CONFIG_PARAMETERS environment (set by `git -c`), in
// git's order; later values win. It never spawns git. Missing files are
// skipped; a file that cannot be read or parsed is an error.
func (r *Repo) Config() (*Config, error) {
	c := &Config{}
	l := &configLoader{repo: r, includes: true}
	for _, p := range systemAndGlobalFiles() {
		if err := l.file(c, p, 0); err != nil {
			return nil, err
		}
	}
	local := &Config{}
	if err := l.file(local, filepath.Join(r.CommonDir, "config"), 0); err != nil {
		return nil, err
	}
	c.merge(local)
	if wc, _ := local.Bool("extensions.worktreeConfig"); wc {
		if err := l.file(c, filepath.Join(r.GitDir, "config.worktree"), 0); err != nil {
			return nil, err
		}
	}
	if err := l.environment(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Get returns the last value of key and whether it is set. Section and
// variable names are case-insensitive, a subsection is case-sensitive
// ("remote.origin.url"). A variable written without "=" reads as "true".
func (c *Config) Get(key string) (string, bool) {
	vs := c.GetAll(key)
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// GetAll returns every value of key in the order git reads them.
func (c *Config) GetAll(key string) []string {
	k, ok := canonicalKey(key)
	if !ok || c == nil {
		return nil
	}
	return c.vals[k]
}

// Bool interprets key as git does (true/yes/on/1, false/no/off/0/empty);
// an unset key is false. An unrecognised value is an error.
func (c *Config) Bool(key string) (bool, error) {
	v, ok := c.Get(key)
	if !ok {
		return false, nil
	}
	b, err := parseBool(v)
	if err != nil {
		return false, fmt.Errorf("config %s: %w", key, err)
	}
	return b, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true, nil
	case "false", "no", "off", "":
		return false, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n != 0, nil
	}
	return false, fmt.Errorf("bad boolean value %q", v)
}

func (c *Config) add(key, value string) {
	if c.vals == nil {
		c.vals = make(map[string][]string)
	}
	c.vals[key] = append(c.vals[key], value)
}

func (c *Config) merge(o *Config) {
	for k, vs := range o.vals {
		for _, v := range vs {
			c.add(k, v)
		}
	}
}

// canonicalKey lowercases the section and variable name of key and keeps
// the subsection as written.
func canonicalKey(key string) (string, bool) {
	i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if i <= 0 || j == len(key)-1 {
		return "", false
	}
	if i == j {
		return strings.ToLower(key), true
	}
	return strings.ToLower(key[:i]) + key[i:j+1] + strings.ToLower(key[j+1:]), true
}

// systemAndGlobalFiles lists the system and global files git would read.
func systemAndGlobalFiles() []string {
	var files []string
	if !envBool("GIT_CONFIG_NOSYSTEM") {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			files = append(files, p)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	if p, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok && p != "" {
		return append(files, p)
	}
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

func envBool(name string) bool {
	b, err := parseBool(os.Getenv(name))
	return err == nil && b
}

// configLoader reads files into a Config, following includes.
type configLoader struct {
	repo     *Repo // for includeIf conditions; may be nil
	includes bool
}

func (l *configLoader) file(c *Config, path string, depth int) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config: %w", err)
	}
	err = parseConfig(data, func(ev configEvent) error {
		if ev.name == "" {
			return nil
		}
		key := ev.key()
		c.add(key, ev.value)
		if l.includes && ev.hasValue {
			return l.include(c, key, ev.value, filepath.Dir(path), depth)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	return nil
}

// include follows include.path and includeIf.<cond>.path found in a file
// whose directory is dir ("" when the value did not come from a file).
func (l *configLoader) include(c *Config, key, value, dir string, depth int) error {
	if key != "include.path" {
		cond, ok := strings.CutPrefix(key, "includeif.")
		if !ok || !strings.HasSuffix(cond, ".path") {
			return nil
		}
		if !l.condition(strings.TrimSuffix(cond, ".path"), dir) {
			return nil
		}
	}
	if depth >= maxIncludeDepth {
		return fmt.Errorf("include.path %s: nested more than %d deep", value, maxIncludeDepth)
	}
	p := expandHome(value)
	if !filepath.IsAbs(p) {
		if dir == "" {
			return nil // git refuses relative includes outside a file
		}
		p = filepath.Join(dir, p)
	}
	return l.file(c, p, depth+1)
}

// condition evaluates the gitdir:, gitdir/i: and onbranch: conditions of
// includeIf; any other condition is false.
func (l *configLoader) condition(cond, dir string) bool {
	if l.repo == nil {
		return false
	}
	var pattern string
	var icase bool
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pattern = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pattern, icase = cond[len("gitdir/i:"):], true
	case strings.HasPrefix(cond, "onbranch:"):
		return l.onBranch(cond[len("onbranch:"):])
	default:
		return false
	}
	pattern = expandHome(pattern)
	if rest, ok := strings.CutPrefix(pattern, "./"); ok {
		if dir == "" {
			return false
		}
		pattern = dir + "/" + rest
	}
	if !filepath.IsAbs(pattern) {
		pattern = "**/" + pattern
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	dirs := []string{l.repo.GitDir}
	if real, err := filepath.EvalSymlinks(l.repo.GitDir); err == nil {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if wildmatch(pattern, d, icase) {
			return true
		}
	}
	return false
}

func (l *configLoader) onBranch(pattern string) bool {
	head, err := os.ReadFile(filepath.Join(l.repo.GitDir, "HEAD"))
	if err != nil {
		return false
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if !ok {
		return false
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	return wildmatch(pattern, branch, false)
}

// environment applies GIT_CONFIG_COUNT/KEY_n/VALUE_n, then the
// GIT_CONFIG_PARAMETERS that `git -c key=value` passes to subcommands.
func (l *configLoader) environment(c *Config) error {
	if s := os.Getenv("GIT_CONFIG_COUNT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("bogus GIT_CONFIG_COUNT %q", s)
		}
		for i := 0; i < n; i++ {
			k, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			if !ok {
				return fmt.Errorf("missing config key GIT_CONFIG_KEY_%d", i)
			}
			v, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
			if !ok {
				return fmt.Errorf("missing config value GIT_CONFIG_VALUE_%d", i)
			}
			if err := l.setFromEnv(c, k, v, true); err != nil {
				return err
			}
		}
	}
	params, err := parseConfigParameters(os.Getenv("GIT_CONFIG_PARAMETERS"))
	if err != nil {
		return fmt.Errorf("GIT_CONFIG_PARAMETERS: %w", err)
	}
	for _, p := range params {
		if err := l.setFromEnv(c, p.key, p.value, p.hasValue); err != nil {
			return err
		}
	}
	return nil
}

func (l *configLoader) setFromEnv(c *Config, key, value string, hasValue bool) error {
	k, ok := canonicalKey(key)
	if !ok {
		return fmt.Errorf("invalid config key %q in environment", key)
	}
	if !hasValue {
		value = "true"
	}
	c.add(k, value)
	if l.includes && hasValue {
		return l.include(c, k, value, "", 0)
	}
	return nil
}

type configParam struct {
	key, value string
	hasValue   bool
}

// parseConfigParameters decodes git's GIT_CONFIG_PARAMETERS: shell-quoted
// entries, either 'key=value' (old style) or 'key'='value' / 'key' (new).
func parseConfigParameters(s string) ([]configParam, error) {
	var out []configParam
	for {
		s = strings.TrimLeft(s, " \t\n")
		if s == "" {
			return out, nil
		}
		first, rest, err := sqDequote(s)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(rest, "=") {
			v, r, err := sqDequote(rest[1:])
			if err != nil {
				return nil, err
			}
			out, s = append(out, configParam{first, v, true}), r
			continue
		}
		k, v, ok := strings.Cut(first, "=")
		out, s = append(out, configParam{k, v, ok}), rest
	}
}

// sqDequote reads one single-quoted word ('it'\”s') from the front of s.
func sqDequote(s string) (word, rest string, err error) {
	var b strings.Builder
	i := 0
	for {
		if i >= len(s) || s[i] != '\'' {
			return "", "", fmt.Errorf("bad quoting near %q", s[i:])
		}
		end := strings.IndexByte(s[i+1:], '\'')
		if end < 0 {
			return "", "", errors.New("unterminated quote")
		}
		b.WriteString(s[i+1 : i+1+end])
		i += end + 2
		if i+1 < len(s) && s[i] == '\\' && (s[i+1] == '\'' || s[i+1] == '!') {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		return b.String(), s[i:], nil
	}
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home := os.Getenv("HOME"); home != "" {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// wildmatch matches name against a git wildmatch pattern with WM_PATHNAME
// semantics: "*" and "?" stop at "/", "**/" spans directories.
func wildmatch(pattern, name string, icase bool) bool {
	var re strings.Builder
	if icase {
		re.WriteString("(?i)")
	}
	re.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		switch {
		case strings.HasPrefix(pattern[i:], "**/") && (i == 0 || pattern[i-1] == '/'):
			re.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			re.WriteString(".*")
			i++
		case ch == '*':
			re.WriteString("[^/]*")
		case ch == '?':
			re.WriteString("[^/]")
		case ch == '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				re.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			re.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case ch == '\\' && i+1 < len(pattern):
			i++
			re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		default:
			re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	re.WriteString("$")
	m, err := regexp.MatchString(re.String(), name)
	return err == nil && m
}
