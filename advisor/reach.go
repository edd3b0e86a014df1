package advisor

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// What a script reaches past its own directory (modules covers that
// directory): the files and directories it names literally above it
// (node's require('../lib/x'), python's sys.path entry '..' or import
// from ..lib, a shell's . ../lib.sh), and for node the node_modules/
// directories of the work tree its requires search. What it builds ($,
// a glob, code) and installed packages stay uncovered, and trust says
// so (reachNote).

const (
	// maxReachFiles bounds the scripts one load reads for what they
	// name above their directory; maxReachBytes a script it reads.
	maxReachFiles = 16
	maxReachBytes = maxRunnerBytes
	// maxPackageEntries and maxPackageBytes bound a node_modules/
	// packages covers, looked at (Lstat) before any is read: a
	// committed one is small; an installed one of thousands of files
	// would cost every command its reads and take the bytes the other
	// covered files need (maxCoveredBytes).
	maxPackageEntries = 2000
	maxPackageBytes   = 8 << 20
)

// reachNote is what trust says of a script's directory it covers.
func reachNote(program string) string {
	return "trust covers what " + program + " runs there and what it names literally above it (../), " +
		"not paths it builds ($, a glob, code), what the modules beside it import from elsewhere, or installed packages"
}

// cdWords is words, a command line's, with after each word that follows
// a literal cd (or pushd; its options skipped: cd -P dir, cd -- dir) or
// env's -C within the work tree that word as read from the directory it
// changes to (cd tools && sh run.sh names tools/run.sh as well; env -C
// tools sh run.sh too): a cd to a path it builds ($, a glob, -, ~,
// none) or above the top ends what it reads so. Reading a word both ways
// only covers more.
func cdWords(words []string) []string { return cdWordsFrom(".", words) }

// cdWordsFrom is cdWords for a command line that starts in the work-tree
// directory dir (a runner's file there, make -C dir): each word also as
// read from dir.
func cdWordsFrom(dir string, words []string) []string {
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := words[i]
		out = append(out, w)
		if dir != "." && w != "" && w[0] != '-' && !filepath.IsAbs(w) {
			out = append(out, path.Join(dir, w))
		}
		to, ok := cdTarget(words, i)
		if !ok {
			continue
		}
		if to == "" || to == "-" || filepath.IsAbs(to) || strings.ContainsAny(to, "$`*?[{~") {
			break
		}
		if dir = path.Join(dir, to); dir == ".." || strings.HasPrefix(dir, "../") {
			break
		}
	}
	return out
}

// cdTarget is the directory words[i] changes to, "" for none it names,
// and whether words[i] changes it: a cd or pushd, past its options; env's
// -C dir, -Cdir, --chdir dir or --chdir=dir.
func cdTarget(words []string, i int) (string, bool) {
	next := func(j int) string {
		if j < len(words) {
			return words[j]
		}
		return ""
	}
	switch w := words[i]; {
	case w == "cd" || w == "pushd":
		j := i + 1
		for ; len(next(j)) > 1 && next(j)[0] == '-'; j++ {
			if next(j) == "--" {
				j++
				break
			}
		}
		return next(j), i+1 < len(words)
	case !afterEnv(words, i):
		return "", false
	case w == "-C" || w == "--chdir":
		return next(i + 1), true
	case strings.HasPrefix(w, "--chdir="):
		return strings.TrimPrefix(w, "--chdir="), true
	case strings.HasPrefix(w, "-C"):
		return w[2:], true
	}
	return "", false
}

// afterEnv reports whether words[i] is among the options and
// assignments of an env command.
func afterEnv(words []string, i int) bool {
	for i--; i >= 0; i-- {
		if w := words[i]; path.Base(w) == "env" {
			return true
		} else if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			return false
		}
	}
	return false
}

// parentPaths are the work-tree paths (relative to the top, "." the
// top itself) that word w of a script in directory dir names above it:
// ../x or .. read from dir and from the top (where the command starts),
// each also with the interpreter's extensions exts; for Python a
// relative import's ..name from dir's parent.
func parentPaths(dir, w string, exts []string) []string {
	var out []string
	add := func(p string) {
		if p != ".." && !strings.HasPrefix(p, "../") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	switch {
	case w == ".." || strings.HasPrefix(w, "../"):
		for _, base := range []string{dir, "."} {
			p := path.Join(base, w)
			add(p)
			for _, e := range exts {
				if p != "." && p != ".." {
					add(p + e)
				}
			}
		}
	case slices.Contains(exts, ".py") && strings.HasPrefix(w, "..") && len(strings.TrimLeft(w, ".")) > 0 && isLetter(strings.TrimLeft(w, ".")[0]):
		name := strings.TrimLeft(w, ".")
		up := dir
		for range len(w) - len(name) - 1 {
			if up == "." {
				return nil
			}
			up = path.Dir(up)
		}
		first, _, _ := strings.Cut(name, ".")
		p := path.Join(up, strings.ReplaceAll(name, ".", "/"))
		add(p)
		add(p + ".py")
		add(path.Join(up, first))
	}
	return out
}

// scanWords is the words of the script rel that parents reads: its
// runs of pathByte that start "..", once each, when it is a regular
// file of at most maxReachBytes; read once a load,
// at most maxReachFiles scripts; a problem says why not.
func (c *coverer) scanWords(rel string) ([]string, string) {
	if read, ok := c.runs["\x00"+rel]; ok {
		return slices.Concat(read.lines...), read.problem
	}
	read := &runRead{}
	c.runs["\x00"+rel] = read
	if c.scanned == maxReachFiles {
		read.problem = fmt.Sprintf("git reason reads at most %d scripts for what they name above their directory", maxReachFiles)
		return nil, read.problem
	}
	c.scanned++
	data, err := ReadRegular(filepath.Join(c.top, filepath.FromSlash(rel)), maxReachBytes, false)
	if err != nil {
		read.problem = "is not read (" + fileProblem(err) + fmt.Sprintf(", or more than %d bytes)", maxReachBytes)
		return nil, read.problem
	}
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(string(data), func(r rune) bool { return r < 0x80 && !pathByte(byte(r)) }) {
		if strings.HasPrefix(w, "..") && !seen[w] { // all parentPaths reads
			seen[w] = true
			words = append(words, w)
		}
	}
	read.lines = [][]string{words}
	return words, ""
}

// parents covers for advisor what the script f, which program runs,
// names above its directory (parentPaths): a directory whole, the top
// as modules does, a file with its own directory and what it names in
// turn (modules; for a shell, exts nil, only what it names in turn),
// depth scripts deep.
func (c *coverer) parents(advisor string, f CoveredFile, program string, exts []string, depth int) []CoveredFile {
	key := advisor + "\x00parents\x00" + f.Path
	if c.done[key] || c.stat || f.Path == "" || f.Problem != "" || strings.HasSuffix(f.Path, "/") {
		return nil
	}
	c.done[key] = true
	if depth > maxRunnerDepth {
		c.note(f.Path, fmt.Sprintf("git reason follows scripts' ../ names %d deep: what this one names is not covered", maxRunnerDepth))
		return nil
	}
	words, problem := c.scanWords(f.Path)
	if problem != "" {
		c.note(f.Path, problem+": what it names above its directory is not covered")
		return nil
	}
	var out []CoveredFile
	via := "named by " + f.Path
	for _, w := range words {
		for _, p := range parentPaths(path.Dir(f.Path), w, exts) {
			if !c.spend(via) {
				return out
			}
			if p == "." {
				if len(exts) > 0 {
					out = append(out, c.topModules(advisor, f.Path, via, exts)...)
				}
				continue
			}
			g, fresh := c.file(advisor, 1, p, via, true)
			if g, fresh = c.indirectFile(advisor, g, fresh, f.Path); fresh {
				out = append(out, g)
			}
			switch {
			case g.Path == "" || strings.HasSuffix(g.Path, "/"):
			case len(exts) > 0:
				out = append(out, c.modulesAt(advisor, g, program, exts, depth+1)...)
			default:
				out = append(out, c.parents(advisor, g, program, nil, depth+1)...)
			}
		}
	}
	return out
}

// packages covers for advisor, when exts are node's, the node_modules/
// directories its requires of a package search in the work tree: in
// each directory above the script f's, to the top (its own directory's
// is in the directory modules covers; the top's files are not): a
// committed one whole, within maxPackageEntries and maxPackageBytes
// (small) and a directory's bounds (coverDir), or said not covered past
// them.
func (c *coverer) packages(advisor string, f CoveredFile, via string, exts []string) []CoveredFile {
	if !slices.Contains(exts, ".js") {
		return nil
	}
	var out []CoveredFile
	dir := path.Dir(f.Path)
	for a := dir; ; a = path.Dir(a) {
		if a != dir || dir == "." {
			if !c.spend(via) {
				break
			}
			nm := path.Join(a, "node_modules")
			if !c.small(nm) {
				c.note(f.Path, fmt.Sprintf("%s/ holds more than %d files and directories or %d bytes (one installed, not committed, usually does): trust does not cover it", nm, maxPackageEntries, maxPackageBytes))
			} else {
				g, fresh := c.file(advisor, 1, nm, via, true)
				if g, fresh = c.indirectFile(advisor, g, fresh, f.Path); fresh {
					out = append(out, g)
				}
			}
		}
		if a == "." {
			break
		}
	}
	return out
}

// small reports whether the work-tree directory rel, if there, holds at
// most maxPackageEntries files and directories of maxPackageBytes in
// all, by their Lstat alone.
func (c *coverer) small(rel string) bool {
	n, size := 0, int64(0)
	err := filepath.WalkDir(filepath.Join(c.top, filepath.FromSlash(rel)), func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxPackageEntries {
			return fs.SkipAll
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		return nil
	})
	return (err != nil && errors.Is(err, fs.ErrNotExist)) || (n <= maxPackageEntries && size <= maxPackageBytes)
}
