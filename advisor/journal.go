package advisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Journal is this clone's own account of the consultations it made: one
// line of JSON per outcome, appended by the consult driver as each outcome
// is recorded. Circuits are derived from it alone. It lives under
// .git/reason/ in the common git dir (shared by worktrees), which no fetch,
// pull or clone writes, so records arriving from elsewhere can never open
// or close a circuit here, whatever origin they claim. The refs remain the
// record of what was said; the journal only says what happened to this
// clone's requests.
//
// Appends are single O_APPEND writes of one short line, so concurrent
// writers (two consult runs, two worktrees) never interleave within a
// line. Reading is bounded: only the last JournalTail bytes are read, and a
// line that does not parse (a torn write, a hand edit) is skipped.
type Journal struct {
	Path string
	// Mkdir, when set, makes the journal's directory in place of
	// os.MkdirAll, and Made, when set, is given the journal's path after
	// each append: in a shared repository (core.sharedRepository) the
	// caller gives them the group's permissions, as git gives its own
	// files, so that the group's other members append too.
	Mkdir func(dir string, perm os.FileMode) error
	Made  func(path string) error
}

// JournalTail is how much of the journal's end is read. Circuits need only
// each advisor's last few outcomes; this holds thousands.
const JournalTail = 256 << 10

// JournalPath is where a repository keeps its journal, given its common
// git dir.
func JournalPath(commonDir string) string {
	return filepath.Join(commonDir, "reason", "outcomes.jsonl")
}

// journalLine is one outcome as the journal stores it.
type journalLine struct {
	At          string `json:"at"`
	Advisor     string `json:"advisor"`
	Origin      string `json:"origin,omitempty"`
	Status      string `json:"status"`
	FailureKind string `json:"failure,omitempty"`
	RetryAfterS int    `json:"retry_after_s,omitempty"`
	Task        string `json:"task,omitempty"`
	Record      string `json:"record,omitempty"`
}

// maxJournalLine bounds one line; an advisor id is short, and a line is
// written in one write.
const maxJournalLine = 2048

// Append adds one outcome; task and rec say where it is recorded on the
// refs ("" when it could not be stored).
func (j Journal) Append(o Outcome, task, rec string) error {
	line, err := json.Marshal(journalLine{At: o.At.UTC().Format(time.RFC3339Nano), Advisor: o.Advisor, Origin: o.Origin,
		Status: o.Status, FailureKind: string(o.FailureKind), RetryAfterS: o.RetryAfterS, Task: task, Record: rec})
	if err != nil {
		return err
	}
	if len(line) >= maxJournalLine {
		return fmt.Errorf("journal line of %d bytes is too long", len(line))
	}
	mkdir := os.MkdirAll
	if j.Mkdir != nil {
		mkdir = j.Mkdir
	}
	if err := mkdir(filepath.Dir(j.Path), 0o777); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(j.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if j.Made != nil {
		_ = j.Made(j.Path) // a file another made stays as it is
	}
	return nil
}

// Read returns the outcomes in the journal's last JournalTail bytes, in the
// order they were appended. A missing journal has no outcomes.
func (j Journal) Read() ([]Outcome, error) {
	f, err := os.Open(j.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("journal %s is not a regular file", j.Path)
	}
	start := max(fi.Size()-JournalTail, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, start, JournalTail))
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	if start > 0 {
		// The first line is probably cut: start at the next whole one.
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	var out []Outcome
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l journalLine
		if len(line) == 0 || json.Unmarshal(line, &l) != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, l.At)
		if err != nil || l.Advisor == "" {
			continue
		}
		out = append(out, Outcome{Advisor: l.Advisor, Origin: l.Origin, Status: l.Status,
			FailureKind: FailureKind(l.FailureKind), RetryAfterS: l.RetryAfterS, At: at, Task: l.Task})
	}
	return out, nil
}
