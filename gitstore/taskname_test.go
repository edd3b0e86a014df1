package gitstore

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"git-reason/record"
	"git-reason/schemas"
)

// taskNames returns every name of up to n characters over an alphabet
// that meets each of git's branch-name rules ('.', '/', "lock"), plus
// hand-picked ones.
func taskNames(n int) []string {
	names := []string{"feature/db-migration", "release/v1.2/notes", "a.lock", "a.lock/b", "a/b.lock", "a/.b", "a./b",
		"a//b", "a/", "a.", "a..b", "a/b/c/d", "T-42", "x" + strings.Repeat("y", 99), "x" + strings.Repeat("y", 100),
		"a/-b", "a/_b", "a@b", "a b", "a~b", "a:b"}
	alphabet := []string{"a", "1", ".", "/", "-", "_", ".lock"}
	level := []string{""}
	for range n {
		var next []string
		for _, p := range level {
			for _, c := range alphabet {
				next = append(next, p+c)
			}
		}
		names, level = append(names, next...), next
	}
	return names
}

// TestCheckTaskIsGitsBranchRule: for names starting with a letter or digit
// over the allowed characters, record.CheckTask accepts exactly what
// git check-ref-format --branch accepts, and the envelope schema's task
// rule (pattern, maxLength, no part ending in .lock) says the same.
func TestCheckTaskIsGitsBranchRule(t *testing.T) {
	t.Parallel()
	var env struct {
		Properties struct {
			Task struct {
				MaxLength int    `json:"maxLength"`
				Pattern   string `json:"pattern"`
				Not       struct {
					Pattern string `json:"pattern"`
				} `json:"not"`
			} `json:"task"`
		} `json:"properties"`
	}
	data, err := schemas.FS.ReadFile("envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	task := env.Properties.Task
	pattern, notPattern := regexp.MustCompile(task.Pattern), regexp.MustCompile(task.Not.Pattern)
	alphabet := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	// git check-ref-format runs once per name, several at a time: its
	// verdicts are gathered first, then compared.
	// With -short, names of up to two characters of the alphabet (and the
	// hand-picked ones, which reach deeper): git starts once per name.
	depth, least := 3, 100
	if testing.Short() {
		depth, least = 2, 30
	}
	names := taskNames(depth)
	var toGit []string
	for _, name := range names {
		if len(name) <= record.MaxTaskLen && alphabet.MatchString(name) {
			toGit = append(toGit, name)
		}
	}
	gitAccepts := make([]bool, len(toGit))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				gitAccepts[i] = exec.Command("git", "check-ref-format", "--branch", toGit[i]).Run() == nil
			}
		})
	}
	for i := range toGit {
		next <- i
	}
	close(next)
	wg.Wait()
	byGit := make(map[string]bool, len(toGit))
	for i, name := range toGit {
		byGit[name] = gitAccepts[i]
	}
	checked := 0
	for _, name := range names {
		ours := record.CheckTask(name) == nil
		schema := pattern.MatchString(name) && !notPattern.MatchString(name) && len(name) <= task.MaxLength
		if ours != schema {
			t.Errorf("%q: CheckTask accepts: %v, the envelope schema accepts: %v", name, ours, schema)
		}
		if ours && CheckRefName(TaskRef(name)) != nil {
			t.Errorf("%q: accepted, but its ref name is not: %v", name, CheckRefName(TaskRef(name)))
		}
		git, compared := byGit[name]
		if !compared {
			if ours {
				t.Errorf("%q: accepted outside the alphabet or length", name)
			}
			continue
		}
		checked++
		if ours != git {
			t.Errorf("%q: CheckTask accepts: %v, git check-ref-format --branch accepts: %v", name, ours, git)
		}
	}
	if checked < least {
		t.Fatalf("only %d names compared with git", checked)
	}
}
