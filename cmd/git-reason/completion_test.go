package main

// Shell completion, tested in the real shells with their own git
// completion: bash with git's git-completion.bash (Debian's git package;
// bash-completion loads it), zsh with its own _git driven through a
// pseudo-terminal (zpty), fish with its git completion through
// "complete -C". A shell that is not installed skips its test, saying
// so (.ci/run installs bash-completion, zsh and fish where it can).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"git-reason/record"
	"git-reason/reliability/harness"
)

// completionRepo is a sandbox with tasks api and db-migration (and
// feature/db-migration where task names may contain '/'), an advisor of
// its own, and the record ids it wrote.
type completionRepo struct {
	*sandbox
	tasks       []string // sorted
	assessments map[string]string
	ids         []string // every record id
	advisors    []string // every declared advisor's id: the defaults and adv-local
}

// newCompletionRepo gives the test its own copy of the completion
// repository, written once for the three shells' tests.
func newCompletionRepo(t *testing.T) *completionRepo {
	t.Helper()
	s := completionTemplate.copy(t, func(t *testing.T, root string, extra ...string) *sandbox {
		completionShared = writeCompletionRepo(t, root)
		return completionShared.sandbox
	})
	r := *completionShared
	r.sandbox = s
	return &r
}

var (
	completionTemplate sandboxTemplate
	completionShared   *completionRepo // what the template holds; its sandbox is the template's
)

func writeCompletionRepo(t *testing.T, root string) *completionRepo {
	t.Helper()
	s := newSandboxAt(t, root, localAdvisor("fake-reviewer", "fake-model-1"), nil)
	r := &completionRepo{sandbox: s, assessments: map[string]string{}}
	tasks := []string{"api", "db-migration"}
	if record.CheckTask("feature/db-migration") == nil {
		tasks = append(tasks, "feature/db-migration")
	}
	for _, task := range tasks {
		var rec struct {
			ID string `json:"id"`
		}
		s.reasonJSON(&rec, "assess", task, "--subject", "Subject of "+task, "--question", "Which way?",
			"--materiality", "minor", "--reversibility", "reversible")
		r.assessments[task] = rec.ID
		r.ids = append(r.ids, rec.ID)
	}
	var plan struct {
		ID string `json:"id"`
	}
	s.reasonJSON(&plan, "plan", "api")
	r.ids = append(r.ids, plan.ID)
	sort.Strings(tasks)
	r.tasks = tasks
	var list struct {
		Advisors []struct {
			ID string `json:"id"`
		} `json:"advisors"`
	}
	s.reasonJSON(&list, "advisors")
	for _, a := range list.Advisors {
		r.advisors = append(r.advisors, a.ID)
	}
	if !slices.Contains(r.advisors, "adv-local") {
		t.Fatalf("advisors --json lists %q, which lacks adv-local", r.advisors)
	}
	return r
}

// shell finds a shell or skips the test, saying why.
func shell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		harness.MissingTool(t, fmt.Sprintf("%s is not installed (apt-get install %s; .ci/run installs it where it can)", name, name))
	}
	return p
}

// runShell runs a shell program in the repository with the sandbox's
// environment plus extra, and returns its stdout.
func (r *completionRepo) runShell(t *testing.T, extra []string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, append(append([]string{}, r.env...), extra...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s: %v\n%s%s", strings.Join(argv, " "), err, out, stderr)
	}
	return string(out)
}

// parseReplies reads "== LINE" headers each followed by one candidate a
// line, into LINE → sorted distinct candidates.
func parseReplies(out string) map[string][]string {
	got := map[string][]string{}
	var cur string
	for _, l := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(l, "== "); ok {
			cur = h
			got[cur] = []string{}
			continue
		}
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(got[cur], l) {
			got[cur] = append(got[cur], l)
		}
	}
	for k := range got {
		sort.Strings(got[k])
	}
	return got
}

// checkReplies holds what every shell must complete.
func (r *completionRepo) checkReplies(t *testing.T, shell string, got map[string][]string, flagSuffix string) {
	t.Helper()
	equal := func(line string, want ...string) {
		t.Helper()
		sort.Strings(want)
		if !slices.Equal(got[line], want) {
			t.Errorf("%s: %q completes %q, want %q", shell, line, got[line], want)
		}
	}
	contains := func(line string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !slices.Contains(got[line], w) {
				t.Errorf("%s: %q completes %q, which lacks %q", shell, line, got[line], w)
			}
		}
	}
	contains("git reason ", "assess", "plan", "consult", "status", "log", "show", "completion", "help", "check")
	for _, hidden := range []string{"hook", "__complete"} {
		if slices.Contains(got["git reason "], hidden) {
			t.Errorf("%s: 'git reason <TAB>' offers the hidden verb %s", shell, hidden)
		}
	}
	equal("git reason as", "assess")
	equal("git reason status ", r.tasks...)
	equal("git reason status d", "db-migration")
	contains("git reason log --", "--max-count"+flagSuffix, "--since"+flagSuffix, "--kind"+flagSuffix, "--oneline", "--json", "--profile"+flagSuffix)
	for _, f := range got["git reason log --"] {
		if !strings.HasPrefix(f, "--") {
			t.Errorf("%s: 'git reason log --<TAB>' offers %q", shell, f)
		}
	}
	equal("git reason plan db-migration --assessment ", r.assessments["db-migration"])
	equal("git reason show ", r.ids...)
	equal("git reason assess x --materiality ", "critical", "material", "minor", "trivial")
	equal("git reason check ", "neutrality")
	equal("git reason completion ", "bash", "fish", "zsh")
	equal("git reason --profile ", "ci", "default", "offline")
	// advisors [ADVISOR...] completes every declared advisor's id, the
	// repository's own and the defaults alike, at every position.
	equal("git reason advisors ", r.advisors...)
	equal("git reason advisors adv-l", "adv-local")
	equal("git reason advisors adv-local ", r.advisors...)
	if slices.Contains(r.tasks, "feature/db-migration") {
		equal("git reason status fea", "feature/db-migration")
		equal("git reason plan feature/db-migration --assessment ", r.assessments["feature/db-migration"])
	}
}

// completionLines are the command lines every shell test completes.
var completionLines = []string{
	"git reason ", "git reason as", "git reason status ", "git reason status d", "git reason log --",
	"git reason plan db-migration --assessment ", "git reason show ", "git reason assess x --materiality ",
	"git reason check ", "git reason completion ", "git reason --profile ",
	"git reason status fea", "git reason plan feature/db-migration --assessment ",
	"git reason advisors ", "git reason advisors adv-l", "git reason advisors adv-local ",
}

// gitBashCompletion is where git's bash completion is installed.
func gitBashCompletion(t *testing.T) string {
	for _, p := range []string{"/usr/share/bash-completion/completions/git", "/etc/bash_completion.d/git", "/usr/local/share/bash-completion/completions/git"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	harness.MissingTool(t, "git's bash completion (git-completion.bash) is not installed")
	return ""
}

// bashDriver loads bash-completion (when installed) and git's completion,
// then, for each line of its arguments, sets COMP_WORDS and COMP_CWORD as
// readline would, calls git's completion entry point and prints COMPREPLY.
const bashDriver = `
[ -f /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
. "$GIT_COMPLETION"
[ -n "$REASON_SCRIPT" ] && . "$REASON_SCRIPT"
for line in "$@"; do
	COMP_LINE="$line"; COMP_POINT=${#line}
	read -r -a COMP_WORDS <<< "$line"
	[[ "$line" == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
	COMPREPLY=()
	__git_wrap__git_main
	echo "== $line"
	printf '%s\n' "${COMPREPLY[@]}"
done
`

func TestCompletionBash(t *testing.T) {
	t.Parallel()
	bash := shell(t, "bash")
	gitCompletion := gitBashCompletion(t)
	r := newCompletionRepo(t)
	script := filepath.Join(t.TempDir(), "git-reason.bash")
	harness.WriteFile(t, script, r.reason("completion", "bash"))
	out := r.runShell(t, []string{"GIT_COMPLETION=" + gitCompletion, "REASON_SCRIPT=" + script},
		append([]string{bash, "--norc", "--noprofile", "-c", bashDriver, "bash"}, completionLines...)...)
	got := parseReplies(out)
	r.checkReplies(t, "bash", got, "=")
	// git's own way: --flag=VALUE completes the value after '='. A branch
	// named as shell syntax (git admits it; a clone brings a stranger's)
	// is not offered: bash would put it on the line unquoted, to run once
	// the line runs.
	r.git("update-ref", "refs/heads/x$(touch${IFS}pwned)", "refs/reasoning/tasks/api")
	out = r.runShell(t, []string{"GIT_COMPLETION=" + gitCompletion, "REASON_SCRIPT=" + script},
		bash, "--norc", "--noprofile", "-c", bashDriver, "bash", "git reason log --kind=con", "git reason pull ", "git reason help st",
		"git reason attempt api --commit x")
	got = parseReplies(out)
	for line, want := range map[string][]string{
		"git reason log --kind=con":         {"conclusion", "consultation"},
		"git reason pull ":                  r.tasks, // no remote in this repository
		"git reason help st":                {"status"},
		"git reason attempt api --commit x": {},
	} {
		if !slices.Equal(got[line], want) {
			t.Errorf("bash: %q completes %q, want %q", line, got[line], want)
		}
	}

	// Installed where the README says, bash-completion loads the script
	// the first time git's completion asks for _git_reason.
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err != nil {
		harness.MissingTool(t, "bash-completion is not installed: the on-demand loading is not tested")
	}
	data := filepath.Join(r.dir, "..", "home", ".local", "share")
	dir := filepath.Join(data, "bash-completion", "completions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(script, filepath.Join(dir, "git-reason")); err != nil {
		t.Fatal(err)
	}
	out = r.runShell(t, []string{"GIT_COMPLETION=" + gitCompletion, "XDG_DATA_HOME=" + data},
		bash, "--norc", "--noprofile", "-c", bashDriver, "bash", "git reason st")
	if got := parseReplies(out)["git reason st"]; !slices.Equal(got, []string{"status"}) {
		t.Errorf("bash, script loaded on demand: 'git reason st' completes %q, want [status]", got)
	}
}

// zshDriver runs an interactive zsh in a pseudo-terminal with compinit
// and zsh's own _git, types each line of its arguments followed by TAB,
// and prints what completion offered: a compadd wrapper writes every
// match to the capture file, and the TAB widget marks the end. It waits
// for that mark, up to a minute a line by the clock, with zsh's own
// zselect and reads the file with $(<file), which start no process (a
// sleep and a grep per poll were about a third of the test's CPU time).
const zshDriver = `
zmodload zsh/zpty || exit 3
zmodload zsh/zselect || exit 3
zmodload zsh/datetime || exit 3
funcdir=$1 cap=$2; shift 2
zpty z zsh -f -i
zpty -w z "PS1='' RPROMPT=''; fpath=($funcdir \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; setopt nobeep"
zpty -w z "compadd () { if (( \${@[(I)-[OAD]]} )); then builtin compadd \"\$@\"; return; fi; local -a m; builtin compadd -O m \"\$@\"; print -rl -- \$m >> $cap; builtin compadd \"\$@\"; }"
zpty -w z "__probe () { zle complete-word; print -r -- '<<END>>' >> $cap; }; zle -N __probe; bindkey '^I' __probe"
for line in "$@"; do
  rm -f $cap
  zpty -w -n z "$line"$'\t'
  end=$(( EPOCHREALTIME + 60 ))
  while (( EPOCHREALTIME < end )); do
    [[ -f $cap && "$(<$cap)" == *'<<END>>'* ]] && break
    zselect -t 2
  done
  print -r -- "== $line"
  [[ -f $cap ]] && grep -v '<<END>>' $cap
  zpty -w -n z $'\x15'
done
zpty -d z
`

func TestCompletionZsh(t *testing.T) {
	t.Parallel()
	zsh := shell(t, "zsh")
	r := newCompletionRepo(t)
	funcs := t.TempDir()
	harness.WriteFile(t, filepath.Join(funcs, "_git-reason"), r.reason("completion", "zsh"))
	lines := append([]string{"git rea", "git-reason sta"}, completionLines...)
	out := r.runShell(t, nil, append([]string{zsh, "-f", "-c", zshDriver, "zsh", funcs, filepath.Join(t.TempDir(), "capture")}, lines...)...)
	got := parseReplies(out)
	r.checkReplies(t, "zsh", got, "")
	// _git lists git reason among the commands, with the script's
	// description line, and compinit binds git-reason itself.
	if !slices.Contains(got["git rea"], "reason") {
		t.Errorf("zsh: 'git rea' completes %q, which lacks reason", got["git rea"])
	}
	if !slices.Equal(got["git-reason sta"], []string{"status"}) {
		t.Errorf("zsh: 'git-reason sta' completes %q, want [status]", got["git-reason sta"])
	}
}

func TestCompletionFish(t *testing.T) {
	t.Parallel()
	fish := shell(t, "fish")
	r := newCompletionRepo(t)
	home := filepath.Join(r.dir, "..", "home")
	confd := filepath.Join(home, ".config", "fish", "conf.d")
	if err := os.MkdirAll(confd, 0o755); err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Join(confd, "git-reason.fish"), r.reason("completion", "fish"))
	var prog strings.Builder
	for _, line := range append([]string{"git-reason sta"}, completionLines...) {
		prog.WriteString("echo " + fishQuote("== "+line) + "; complete -C " + fishQuote(line) + " | string replace -r '\\t.*' ''\n")
	}
	prog.WriteString("true\n") // string replace fails where it replaced nothing
	out := r.runShell(t, []string{"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}, fish, "-c", prog.String())
	got := parseReplies(out)
	// fish's git completion adds its own --help to every git command.
	got["git reason log --"] = slices.DeleteFunc(got["git reason log --"], func(s string) bool { return s == "--help" })
	r.checkReplies(t, "fish", got, "")
	if !slices.Equal(got["git-reason sta"], []string{"status"}) {
		t.Errorf("fish: 'git-reason sta' completes %q, want [status]", got["git-reason sta"])
	}
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
