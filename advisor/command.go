package advisor

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// shells are the programs whose -c option takes a script whose words
// commandNames reads.
var shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"}

// opaqueWords move the script or build what it runs from text trust
// does not read: after them a word is not the path it looks like.
var opaqueWords = []string{"cd", "pushd", "popd", "eval", "alias"}

// shellWords are words of the shell's grammar that a glob character
// does not make opaque: [ -f x ], [[ ... ]], { ...; }.
var shellWords = []string{"[", "[[", "{"}

// maxScriptDepth bounds how many shells' -c scripts within one another
// commandNames reads.
const maxScriptDepth = 4

// commandNames is, for each element of argv, the paths it may name: the
// program; each argument and the values argPaths finds in it; and for the
// script of a shell's -c option ([sh, -c, "./tools/review.sh --fast"],
// [env, X=1, bash, -lc, ...]) also every word of that script (scriptWords),
// as an argument, and so on for a shell's -c within it; and for an
// interpreter's code (codeNames) the words of the code. Whatever of these
// names something in the work tree is covered, as are the files a
// program reads in the top on its own (implicitFiles: make's Makefile).
// opaque lists, as trust --show says it, what trust cannot follow: a
// shell script that uses an expansion ($, `), a glob, cd or eval, or
// quotes it cannot read (shellNote); code given to an interpreter on its
// command line, which can build any path; a project a program builds and
// runs (projectRunners).
func commandNames(argv []string) (names [][]string, opaque []string) {
	names = make([][]string, len(argv))
	for i, a := range argv {
		names[i] = argPaths(i, a)
	}
	shell := false
	for _, i := range scriptArgs(argv) {
		words, ok := scriptNames(argv[i], 1)
		names[i] = append(names[i], words...)
		shell = shell || !ok
	}
	if shell {
		opaque = append(opaque, shellNote)
	}
	return names, append(opaque, codeNames(argv, names)...)
}

// scriptNames is what the words of a -c script, and of the scripts of
// shells it runs with -c, may name (argPaths), depth scripts deep;
// false when any of them is opaque (commandNames), or runs an
// interpreter's code (codeNames).
func scriptNames(script string, depth int) ([]string, bool) {
	words, ok := scriptWords(script)
	words = cdWords(words)
	var out []string
	for _, w := range words {
		out = append(out, argPaths(1, w)...)
	}
	code := make([][]string, len(words))
	if len(codeNames(words, code)) > 0 {
		ok = false
	}
	out = append(out, slices.Concat(code...)...)
	if depth >= maxScriptDepth {
		return out, ok && len(scriptArgs(words)) == 0
	}
	for _, i := range scriptArgs(words) {
		more, fine := scriptNames(words[i], depth+1)
		out, ok = append(out, more...), ok && fine
	}
	return out, ok
}

// scriptArgs are the indexes of argv holding a shell's -c script: after
// a word naming a shell (by its base name), its options (a cluster of
// one-letter options holding c: -c, -ec, -lc; -o and -O take the next
// word), the first other word.
func scriptArgs(argv []string) []int {
	var out []int
	for j, a := range argv {
		if !slices.Contains(shells, filepath.Base(a)) {
			continue
		}
		c, k := false, j+1
		for ; k < len(argv); k++ {
			o := argv[k]
			if o == "--" {
				k++
				break
			}
			if len(o) < 2 || (o[0] != '-' && o[0] != '+') {
				break
			}
			switch {
			case o[1] == '-': // --login, --norc
			case o == "-o" || o == "+o" || o == "-O" || o == "+O":
				k++
			case o[0] == '-' && strings.ContainsRune(o, 'c'):
				c = true
			}
		}
		if c && k < len(argv) {
			out = append(out, k)
		}
	}
	return out
}

// scriptWords splits a shell script into its words as the shell would
// before expanding them: at blanks, newlines and the operators ; & | ( )
// < >, with single quotes, double quotes and backslashes taken out; a
// comment dropped. ok is false when the script holds what the shell
// would expand or search ($, ` or a glob or brace outside quotes), a
// word of opaqueWords, or an unterminated quote: the words are then
// what it names literally, not all it may run.
func scriptWords(s string) (words []string, ok bool) {
	ok = true
	var w strings.Builder
	in, glob := false, false // a word is open; it has an unquoted glob character
	end := func() {
		if in {
			word := w.String()
			if (glob && !slices.Contains(shellWords, word)) || slices.Contains(opaqueWords, word) {
				ok = false
			}
			words = append(words, word)
		}
		w.Reset()
		in, glob = false, false
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n' || strings.IndexByte(";&|()<>", ch) >= 0:
			end()
		case ch == '#' && !in:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ch == '\'':
			n := strings.IndexByte(s[i+1:], '\'')
			if n < 0 {
				return append(words, w.String()+s[i+1:]), false
			}
			w.WriteString(s[i+1 : i+1+n])
			i, in = i+1+n, true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '$' || s[i] == '`' {
					ok = false
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return append(words, w.String()), false
			}
			in = true
		case ch == '\\':
			if i++; i < len(s) && s[i] != '\n' {
				w.WriteByte(s[i])
				in = true
			}
		default:
			if ch == '$' || ch == '`' {
				ok = false
			}
			glob = glob || strings.IndexByte("*?[{", ch) >= 0
			w.WriteByte(ch)
			in = true
		}
	}
	end()
	return words, ok
}

// shellNote is what trust --show says of a shell script it cannot follow.
const shellNote = "its shell script is not fully covered: trust covers the files its words name, also after a literal cd, not paths it builds with $, `, a glob, eval or a cd to a built path"

// implicitFiles are, by program, the files it reads in the directory it
// starts in (the work tree's top) when no argument names them: covered
// when they are there.
var implicitFiles = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"make": {"GNUmakefile", "makefile", "Makefile"}, "gmake": {"GNUmakefile", "makefile", "Makefile"}, "bmake": {"makefile", "Makefile"},
		"just": {"justfile", "Justfile", ".justfile"}, "rake": {"Rakefile", "rakefile", "Rakefile.rb"},
		"npm": {"package.json", ".npmrc"}, "npx": {"package.json", ".npmrc"}, "yarn": {"package.json", ".yarnrc", ".yarnrc.yml"},
		"pnpm": {"package.json", ".npmrc"}, "bun": {"package.json", "bunfig.toml"}, "deno": {"deno.json", "deno.jsonc"},
		"task": {"Taskfile.yml", "Taskfile.yaml"}, "invoke": {"tasks.py"}, "nox": {"noxfile.py"}, "tox": {"tox.ini"},
	}
})

// runDirs are the directories a task runner's options say it runs in
// (make -C dir, npm --prefix dir, yarn --cwd dir, just -d dir), where it
// reads its file (implicitFiles). Reading an option of another meaning
// so only covers more.
func runDirs(args []string) []string {
	var out []string
	for i, a := range args {
		for _, o := range []string{"-C", "-d", "--directory", "--prefix", "--cwd", "--dir", "--working-directory"} {
			switch {
			case a == o && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(a, o+"=") || (len(o) == 2 && strings.HasPrefix(a, o) && len(a) > 2):
				out = append(out, strings.TrimPrefix(a[len(o):], "="))
			}
		}
	}
	return out
}

// projectRunners build and run the project they start in, the work
// tree's own code, which trust does not cover.
var projectRunners = []string{"cargo", "go", "gradle", "gradlew", "mvn", "mvnw", "dotnet", "uv", "poetry", "pipenv", "bundle", "mix", "sbt", "swift", "stack", "cabal", "zig"}

// interpreter is how a program other than a shell takes code on its
// command line (python3 -c CODE, node -e CODE, awk PROGRAM).
type interpreter struct {
	// letters are its one-letter options that give code (or a module
	// to run: python3 -m), alone or in a cluster (-lne); long its long
	// options that do (compared without case, alone or with =value).
	letters string
	long    []string
	// inline says the program's first argument that is not an option is
	// code (awk, sed), unless a file of code is given (-f).
	inline bool
	// exts are what the interpreter adds to a name to find a file (a
	// module, a required file): a word of its code is also looked for
	// with each.
	exts []string
}

// interpreters are the programs, by base name with a version dropped
// (python3.12, perl5.36), whose code on the command line trust reads as
// words (codeNames).
var interpreters = sync.OnceValue(func() map[string]interpreter {
	return map[string]interpreter{
		"python":     {letters: "cm", exts: []string{".py"}},
		"pypy":       {letters: "cm", exts: []string{".py"}},
		"node":       {letters: "ep", long: jsEval, exts: jsExts},
		"nodejs":     {letters: "ep", long: jsEval, exts: jsExts},
		"bun":        {letters: "ep", long: jsEval, exts: jsExts},
		"deno":       {long: []string{"eval"}, exts: jsExts},
		"perl":       {letters: "eE", exts: []string{".pl", ".pm"}},
		"ruby":       {letters: "e", exts: []string{".rb"}},
		"php":        {letters: "rBRE", exts: []string{".php"}},
		"lua":        {letters: "e", exts: []string{".lua"}},
		"luajit":     {letters: "e", exts: []string{".lua"}},
		"Rscript":    {letters: "e", exts: []string{".R"}},
		"R":          {letters: "e", exts: []string{".R"}},
		"julia":      {letters: "eE", long: jsEval, exts: []string{".jl"}},
		"elixir":     {letters: "e", long: jsEval[:1], exts: []string{".exs", ".ex"}},
		"osascript":  {letters: "e"},
		"pwsh":       {inline: true, long: psCommand, exts: []string{".ps1"}},
		"powershell": {inline: true, long: psCommand, exts: []string{".ps1"}},
		"awk":        {inline: true, letters: "e"},
		"gawk":       {inline: true, letters: "e"},
		"mawk":       {inline: true},
		"nawk":       {inline: true},
		"sed":        {inline: true, letters: "e", long: []string{"--expression"}},
		"gsed":       {inline: true, letters: "e", long: []string{"--expression"}},
		"tclsh":      {inline: true},
		"wish":       {inline: true},
	}
})

var (
	jsEval    = []string{"--eval", "--print"}
	jsExts    = []string{".js", ".mjs", ".cjs", ".ts"}
	psCommand = []string{"-c", "-command", "-e", "-ec", "-encodedcommand"}
)

// interpreterOf is the interpreter argument a names, by its base name
// with a version (digits and dots) dropped.
func interpreterOf(a string) (string, interpreter, bool) {
	base := filepath.Base(a)
	name := strings.TrimRight(base, "0123456789.")
	in, ok := interpreters()[name]
	return base, in, ok
}

// codeNames adds to names[j] the files the program argv[j] reads on its
// own (implicitFiles), notes a project runner, and adds to names[k], for
// each argument k after an interpreter
// in argv, the words of it that may name a file where it is code (text
// holding more than one path-like word: "exec(open('tools/x.py').read())"
// names tools/x.py), each also with the interpreter's extensions (and
// for Python a dotted module's first part: tools.review names tools/),
// and lists the interpreters whose code trust cannot follow: given a
// code option (python3 -c, node -e, perl -lne), or for awk, sed and
// kin an argument that is not a path, code can build any path, so what
// its words name is covered and trust --show says the rest is not.
// Reading more arguments as code than the program does only covers
// more.
func codeNames(argv []string, names [][]string) (opaque []string) {
	followed := 0
	for j, a := range argv {
		files := implicitFiles()[filepath.Base(a)]
		names[j] = append(names[j], files...)
		for _, d := range runDirs(argv[j+1:]) {
			for _, f := range files {
				names[j] = append(names[j], path.Join(d, f))
			}
		}
		if slices.Contains(projectRunners, filepath.Base(a)) && !slices.Contains(opaque, runnerNote(a)) {
			opaque = append(opaque, runnerNote(a))
		}
		base, in, ok := interpreterOf(a)
		if !ok {
			continue
		}
		// Each interpreter reads the arguments after it: a stranger's
		// command of thousands of interpreter names would read them
		// thousands of times each.
		if followed++; followed > maxInterpreters {
			if followed == maxInterpreters+1 {
				opaque = append(opaque, "its interpreters past the first eight are not followed: trust does not cover their code")
			}
			continue
		}
		code := false
		for k := j + 1; k < len(argv); k++ {
			o := argv[k]
			code = code || codeOption(in, o) || (in.inline && !pathWord(o))
			names[k] = append(names[k], codeWords(o, in)...)
		}
		if code {
			opaque = append(opaque, "its "+base+" code is not fully covered: trust covers the work-tree files its words name, not paths it builds or modules it finds")
		}
	}
	return opaque
}

// runnerNote is what trust --show says of a project runner a of
// projectRunners.
func runnerNote(a string) string {
	return filepath.Base(a) + " builds and runs the work tree's own project: trust does not cover it"
}

// codeOption reports whether o gives interpreter in code.
func codeOption(in interpreter, o string) bool {
	name, _, _ := strings.Cut(o, "=")
	if slices.ContainsFunc(in.long, func(l string) bool { return strings.EqualFold(l, name) }) {
		return true
	}
	return len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsAny(o[1:], in.letters) && in.letters != ""
}

// pathWord reports whether s is one word that may be a path or option
// (pathByte), not text of code.
func pathWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && !pathByte(byte(r)) && r != '=' && r != ',' }) < 0
}

// pathByte reports whether c may stand in a word of code that names a
// path: a letter, digit, one of . _ / + @ ~ % -, or a byte of a
// character beyond ASCII.
func pathByte(c byte) bool {
	return isLetter(c) || (c >= '0' && c <= '9') || strings.IndexByte("._/+@~%-", c) >= 0 || c >= 0x80
}

// maxInterpreters bounds the interpreters of one command codeNames
// follows (its note says "eight"): a real command names one or two.
const maxInterpreters = 8

// maxCodeWords bounds the words of one argument codeWords reads: real
// code on a command line has far fewer, and a stranger's overlay of a
// megabyte of words must not make every command look for each.
const maxCodeWords = 4096

// codeWords are the words of s, an interpreter's code, that may name a
// path in the work tree: its runs of pathByte, each also with in's
// extensions, a Python module's first part; not s itself (argPaths
// reads it), none twice; the first maxCodeWords words only.
func codeWords(s string, in interpreter) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if w != "" && w != "." && w != ".." && w != s && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for i, w := range strings.FieldsFunc(s, func(r rune) bool { return r < 0x80 && !pathByte(byte(r)) }) {
		if i == maxCodeWords {
			break // said not fully covered (codeNames) all the same
		}
		add(w)
		if first, _, dotted := strings.Cut(w, "."); dotted && slices.Contains(in.exts, ".py") && !strings.Contains(w, "/") {
			add(first)
			add(first + ".py")
		}
		for _, e := range in.exts {
			add(w + e)
		}
	}
	return out
}
