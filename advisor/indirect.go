package advisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// What a covered file runs in turn, which no word of the command names:
// the files a task runner's file (a Makefile's recipes, package.json's
// scripts) names, and the modules an interpreter finds beside the
// script it runs (python puts the script's directory first on its path;
// node resolves ./ requires from it). A pull that changes one runs it
// as surely as one that changes the command's own file.

// runner is how trust reads a task runner's file for what it runs: by
// lines, each split as a shell's command line (scriptWords), every line,
// not only a recipe's (a variable's value names a script as well); by the
// string values of a JSON file's member (package.json's scripts); or as
// an interpreter's code (codeWords).
type runner struct {
	member string // the JSON object whose values are scripts
	code   string // the interpreter whose code the file is
	make   bool   // its include, -include and sinclude lines name makefiles
}

// runners are the task runners' files by base name (a makefile also by
// the suffix .mk): those of implicitFiles that name what they run.
var runners = sync.OnceValue(func() map[string]runner {
	mk := runner{make: true}
	return map[string]runner{
		"GNUmakefile": mk, "makefile": mk, "Makefile": mk,
		"justfile": {}, "Justfile": {}, ".justfile": {}, "Taskfile.yml": {}, "Taskfile.yaml": {}, "tox.ini": {}, "deno.jsonc": {},
		"package.json": {member: "scripts"}, "deno.json": {member: "tasks"},
		"Rakefile": {code: "ruby"}, "rakefile": {code: "ruby"}, "Rakefile.rb": {code: "ruby"},
		"tasks.py": {code: "python"}, "noxfile.py": {code: "python"},
	}
})

const (
	// maxRunnerBytes bounds a runner's file git reason reads for what
	// it names; maxRunnerFiles the runners' files one load reads (a
	// Makefile's includes among them); maxRunnerDepth how deep within
	// one another they are followed.
	maxRunnerBytes = 1 << 20
	maxRunnerFiles = 16
	maxRunnerDepth = 4
	// maxIndirectNames bounds the names one load follows from runners'
	// files and scripts' directories, all advisors together: a
	// stranger's Makefile of a megabyte of words, named by thousands of
	// advisors, must not make every command look for each.
	maxIndirectNames = 1 << 16
	// maxTopModules bounds the modules in the top covered beside a
	// script there.
	maxTopModules = 64
)

// runRead is what one runner's file names: its lines as commands (or
// its code's words as one), the makefiles it includes, why it did not
// read.
type runRead struct {
	lines    [][]string
	includes []string
	problem  string
}

// recipesNote is what trust says of a runner's file it read.
const recipesNote = "trust covers the work-tree files its recipes' words name, also after a literal cd, not directories or paths they build ($, a glob, a cd to a built path, code)"

// command covers what argv names (commandNames) for advisor: at depth 0
// the advisor's command; deeper, a line of the runner's file via that
// depth-1 files run, where a directory a word names is not covered (a
// recipe's rm -rf node_modules). Then what these run in turn: the files
// of a runner's file it names (runner) and the modules beside the script
// an interpreter runs (modules).
func (c *coverer) command(advisor string, argv []string, depth int, via string) []CoveredFile {
	var out []CoveredFile
	names, _ := commandNames(argv)
	for i, as := range names {
		for k, a := range as {
			if k > 0 {
				i = max(i, 1) // what the program reads on its own (implicitFiles) is no program
			}
			if depth > 0 && !c.spend(via) {
				return out
			}
			f, fresh := c.file(advisor, i, a, via, depth == 0)
			if depth > 0 {
				f, fresh = c.indirectFile(advisor, f, fresh, strings.TrimPrefix(via, "named by "))
			}
			if fresh {
				out = append(out, f)
			}
			if r, ok := runnerOf(f); ok {
				out = append(out, c.runner(advisor, f, r, depth+1)...)
			}
		}
	}
	return append(out, c.scripts(advisor, argv, depth, via)...)
}

// spend counts one name followed from a runner's file or a script's
// directory, and reports whether one was left; when none is, trust
// says so of via.
func (c *coverer) spend(via string) bool {
	if c.indirect--; c.indirect >= 0 {
		return true
	}
	c.note(strings.TrimPrefix(via, "named by "), fmt.Sprintf("git reason follows at most %d names of runners' files and scripts' directories: what it runs past them is not covered", maxIndirectNames))
	return false
}

// runnerOf is how trust reads f, a covered file, when it is a runner's
// file that read well.
func runnerOf(f CoveredFile) (runner, bool) {
	if f.Path == "" || f.Problem != "" || strings.HasSuffix(f.Path, "/") {
		return runner{}, false
	}
	base := path.Base(f.Path)
	if strings.HasSuffix(base, ".mk") {
		return runner{make: true}, true
	}
	r, ok := runners()[base]
	return r, ok
}

// runner covers for advisor what the runner's file f names, each line
// as a command, and the makefiles it includes, once per advisor; depth
// says how deep in runners' files f is.
func (c *coverer) runner(advisor string, f CoveredFile, r runner, depth int) []CoveredFile {
	key := advisor + "\x00" + f.Path
	if c.done[key] || c.stat { // looked at, not read, when no trust is recorded
		return nil
	}
	c.done[key] = true
	if c.indirect <= 0 {
		c.spend(f.Path) // says so
		return nil
	}
	if depth > maxRunnerDepth {
		c.note(f.Path, fmt.Sprintf("git reason reads runners' files %d deep: what this one runs is not covered", maxRunnerDepth))
		return nil
	}
	read := c.readRunner(f.Path, r)
	if read.problem != "" {
		c.note(f.Path, read.problem+": what it runs is not covered")
		return nil
	}
	c.note(f.Path, recipesNote)
	var out []CoveredFile
	via := "named by " + f.Path
	for _, line := range read.lines {
		if c.indirect <= 0 {
			c.spend(f.Path)
			break
		}
		out = append(out, c.command(advisor, line, depth, via)...)
	}
	for _, inc := range read.includes {
		if !c.spend(via) {
			break
		}
		g, fresh := c.file(advisor, 1, inc, via, false)
		g, fresh = c.indirectFile(advisor, g, fresh, f.Path)
		if fresh {
			out = append(out, g)
		}
		if g.Path != "" && g.Problem == "" {
			out = append(out, c.runner(advisor, g, runner{make: true}, depth+1)...)
		}
	}
	return out
}

// readRunner reads the runner's file rel, once a load, at most
// maxRunnerFiles of them.
func (c *coverer) readRunner(rel string, r runner) *runRead {
	if read, ok := c.runs[rel]; ok {
		return read
	}
	read := &runRead{}
	c.runs[rel] = read
	if c.read == maxRunnerFiles {
		read.problem = fmt.Sprintf("git reason reads at most %d runners' files", maxRunnerFiles)
		return read
	}
	c.read++
	data, err := ReadRegular(filepath.Join(c.top, filepath.FromSlash(rel)), maxRunnerBytes, false)
	if err != nil {
		read.problem = "is not read (" + fileProblem(err) + fmt.Sprintf(", or more than %d bytes)", maxRunnerBytes)
		return read
	}
	switch {
	case r.code != "":
		read.lines = [][]string{append([]string{""}, codeWords(string(data), interpreters()[r.code])...)}
	case r.member != "":
		var doc map[string]json.RawMessage
		var scripts map[string]any
		if json.Unmarshal(data, &doc) != nil || (doc[r.member] != nil && json.Unmarshal(doc[r.member], &scripts) != nil) {
			read.problem = "does not parse as JSON"
			return read
		}
		keys := make([]string, 0, len(scripts))
		for k := range scripts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if s, ok := scripts[k].(string); ok {
				words, _ := scriptWords(s)
				read.lines = append(read.lines, cdWordsFrom(path.Dir(rel), words))
			}
		}
	default:
		for _, line := range strings.Split(string(data), "\n") {
			words, _ := scriptWords(strings.TrimLeft(line, " \t@-+"))
			words = cdWordsFrom(path.Dir(rel), words) // make -C dir runs it there
			if r.make && !strings.HasPrefix(line, "\t") && len(words) > 1 && slices.Contains([]string{"include", "-include", "sinclude"}, words[0]) {
				read.includes = append(read.includes, words[1:]...)
			}
			if len(words) > 0 {
				read.lines = append(read.lines, words)
			}
		}
	}
	return read
}

// scripts covers for advisor the modules beside each script argv runs:
// its program when it is a path with an interpreter's extension
// (./tools/review.py), and the first argument naming a regular file of
// the work tree after each of its first interpreters, before the
// interpreter's code option; of a shell's script (sh tools/x.sh,
// ./tools/x.sh), what it names above its directory (parents). Each
// shell's -c script is read so as well, its words as a command line's
// (cdWords).
func (c *coverer) scripts(advisor string, argv []string, depth int, via string) []CoveredFile {
	var out []CoveredFile
	if depth == 0 {
		argv = cdWords(argv) // a runner's line and a -c script's words are read so already
	}
	if len(argv) > 0 && strings.Contains(argv[0], "/") {
		for _, in := range interpreters() {
			if slices.Contains(in.exts, path.Ext(argv[0])) {
				f, _ := c.file(advisor, 0, argv[0], via, false)
				out = append(out, c.modules(advisor, f, "its interpreter", in.exts)...)
				break
			}
		}
		if path.Ext(argv[0]) == ".sh" {
			f, _ := c.file(advisor, 0, argv[0], via, false)
			out = append(out, c.parents(advisor, f, "its shell", nil, 0)...)
		}
	}
	// Interpreters and shells are counted apart: codeNames counts the
	// interpreters alone (and says when it stops), so eight shell runs or
	// sourced scripts before "python3 tools/x.py" left tools/ uncovered,
	// and nothing said so.
	followed, shellsFollowed := 0, 0
	for j, a := range argv {
		base, in, ok := interpreterOf(a)
		if slices.Contains(shells, filepath.Base(a)) || a == "." || a == "source" { // what a shell sources runs as its script does
			base, in, ok = filepath.Base(a), interpreter{letters: "c"}, true
			if shellsFollowed++; shellsFollowed > maxInterpreters {
				if shellsFollowed == maxInterpreters+1 {
					c.note(strings.TrimPrefix(via, "named by "), fmt.Sprintf("its shell runs past the first %d are not followed: what their scripts name above their directories is not covered", maxInterpreters))
				}
				continue
			}
		} else if !ok || len(in.exts) == 0 {
			continue
		} else if followed++; followed > maxInterpreters {
			break // codeNames says so
		}
		for _, o := range argv[j+1:] {
			if codeOption(in, o) || (depth > 0 && !c.spend(via)) {
				break
			}
			if f, _ := c.file(advisor, 1, o, via, false); f.Path != "" && in.exts != nil {
				out = append(out, c.modules(advisor, f, base, in.exts)...)
				break
			} else if f.Path != "" {
				out = append(out, c.parents(advisor, f, base, nil, 0)...)
				break
			}
		}
	}
	if depth < maxScriptDepth {
		for _, i := range scriptArgs(argv) {
			words, _ := scriptWords(argv[i])
			out = append(out, c.scripts(advisor, cdWords(words), depth+1, via)...)
		}
	}
	return out
}

// modules covers for advisor the modules program finds beside the script
// f (modulesAt), a script the command runs.
func (c *coverer) modules(advisor string, f CoveredFile, program string, exts []string) []CoveredFile {
	return c.modulesAt(advisor, f, program, exts, 0)
}

// modulesAt covers for advisor the modules program finds beside the
// script f: the directory it is in, every file under it; or, when that
// is the work tree's top (the whole work tree would untrust at every
// commit), the top's files of the interpreter's extensions exts, and for
// Python its packages (topModules); then what it reaches past that
// directory (packages, parents), depth scripts deep.
func (c *coverer) modulesAt(advisor string, f CoveredFile, program string, exts []string, depth int) []CoveredFile {
	if f.Path == "" || f.Problem != "" {
		return nil
	}
	via := "beside " + f.Path + ", which " + program + " runs"
	var out []CoveredFile
	if dir := path.Dir(f.Path); dir != "." {
		c.note(dir+"/", reachNote(program))
		g, fresh := c.file(advisor, 1, dir, via, true)
		if g, fresh = c.indirectFile(advisor, g, fresh, f.Path); fresh {
			out = append(out, g)
		}
	} else {
		python := slices.Contains(exts, ".py")
		c.note(f.Path, fmt.Sprintf("it is in the work tree's top: trust covers the %s files there beside it%s, at most %d, and what it names literally above it (../), not other directories it may import from",
			strings.Join(exts, ", "), map[bool]string{true: " and its packages (directories holding __init__.py)"}[python], maxTopModules))
		out = c.topModules(advisor, f.Path, via, exts)
	}
	out = append(out, c.packages(advisor, f, via, exts)...)
	return append(out, c.parents(advisor, f, program, exts, depth)...)
}

// topModules covers for advisor the top's files of the extensions exts
// but the script at script, and for Python the top's packages, at most
// maxTopModules.
func (c *coverer) topModules(advisor, script, via string, exts []string) []CoveredFile {
	python := slices.Contains(exts, ".py")
	entries, _ := os.ReadDir(c.top)
	var out []CoveredFile
	n := 0
	for _, e := range entries {
		module := slices.Contains(exts, path.Ext(e.Name())) && !e.IsDir()
		if !module && python && e.IsDir() {
			_, err := os.Lstat(filepath.Join(c.top, e.Name(), "__init__.py"))
			module = err == nil
		}
		if !module || e.Name() == script {
			continue
		}
		if n++; n > maxTopModules || !c.spend(script) {
			break
		}
		g, fresh := c.file(advisor, 1, e.Name(), via, true)
		if g, fresh = c.indirectFile(advisor, g, fresh, script); fresh {
			out = append(out, g)
		}
	}
	return out
}

// indirectFile is f, which file found for advisor (fresh: not listed
// before), what no word of its command names: trust does not list one it
// cannot cover (a symbolic link, a directory past the bound: a
// virtualenv's bin/ beside a script), which would make the overlay
// untrustable for a file its command does not name, but says so of the
// file at noteAt; a pull that makes a listed file such drops it from the
// list, which untrusts the overlay as any change does. A command that
// names it later lists it (file).
func (c *coverer) indirectFile(advisor string, f CoveredFile, fresh bool, noteAt string) (CoveredFile, bool) {
	if f.Problem == "" || !(fresh || c.hidden[f.Path]) {
		return f, fresh
	}
	c.hidden[f.Path] = true
	c.named[advisor] = c.named[advisor][:len(c.named[advisor])-1]
	c.note(noteAt, f.Path+" "+f.Problem+": trust does not cover it")
	return CoveredFile{}, false
}

// note records what trust says of the file at p (a Path) it does not
// cover, each once.
func (c *coverer) note(p, text string) {
	if p != "" && !slices.Contains(c.notes[p], text) {
		c.notes[p] = append(c.notes[p], text)
	}
}

// noted is files with what trust says of each (note).
func (c *coverer) noted(files []CoveredFile) []CoveredFile {
	for i, f := range files {
		files[i].Note = strings.Join(c.notes[f.Path], "; ")
	}
	return files
}
