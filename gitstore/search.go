package gitstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/record"
)

// searchMagic starts .git/reason/search; its number changes with the
// file's shape or with what record.Texts returns.
const searchMagic = "git reason search index 1\n"

// SearchHit is a record whose texts matched, with what log shows of it
// and the texts that matched.
type SearchHit struct {
	Task string `json:"task"`
	record.TimelineEntry
	Matches []record.Text `json:"matches"`
}

// Search returns the records of every task that reads with at least one
// text (record.Texts) that match accepts, in task order, then history
// order. It reads .git/reason/search, the texts of every record keyed by
// its task's head: only the tasks whose head moved since (a write, a pull,
// plain git) are read again, and the file is rebuilt whole when it is
// missing or does not parse. match is called with each text as written.
//
// The file is searchMagic, then per task a line "T\t<task>\t<head>", per
// record a line "R\t<id>\t<kind>\t<clock>\t<created>\t<actor>\t<summary>"
// (the timeline's, withdrawn marked) and per text "F\t<field>\t<text>",
// with tabs, newlines and carriage returns in values made spaces.
func (x Index) Search(ctx context.Context, match func(text string) bool) ([]SearchHit, error) {
	s := x.Store
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(s.Repo.CommonDir, "reason", "search")
	blocks := map[string]searchBlock{}
	data, err := os.ReadFile(path)
	if err == nil && bytes.HasPrefix(data, []byte(searchMagic)) {
		blocks = parseSearch(data[len(searchMagic):])
	}
	changed := len(blocks) != len(tasks)
	var out []SearchHit
	var file bytes.Buffer
	file.WriteString(searchMagic)
	for _, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, ok := blocks[t.Task]
		if !ok || b.head != t.Head {
			changed = true
			st, _, err := s.deriveAt(t.Task, t.Head)
			if err != nil {
				s.Skip(t.Task, err)
				continue
			}
			b = searchBlock{head: t.Head, data: encodeSearch(t.Task, t.Head, st)}
		}
		file.Write(b.data)
		out = scanSearch(out, b.data, match)
	}
	if changed {
		_ = writeFileAtomic(path, file.Bytes()) // a cache that cannot be written is rebuilt next time
	}
	return out, nil
}

// searchBlock is one task's lines in the file, its own "T" line first.
type searchBlock struct {
	head string
	data []byte
}

// parseSearch cuts the file's body into its tasks' blocks; a block whose
// first line is not a task line ends the parse (the rest is read again).
func parseSearch(data []byte) map[string]searchBlock {
	out := map[string]searchBlock{}
	for len(data) > 0 {
		end := bytes.Index(data, []byte("\nT\t"))
		if end < 0 {
			end = len(data)
		} else {
			end++
		}
		block := data[:end]
		data = data[end:]
		line, _, ok := bytes.Cut(block, []byte{'\n'})
		f := strings.Split(string(line), "\t")
		if !ok || len(f) != 3 || f[0] != "T" || len(f[2]) != 40 {
			break
		}
		out[f[1]] = searchBlock{head: f[2], data: block}
	}
	return out
}

// flat makes a value one field of a line.
var flat = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

func encodeSearch(task, head string, st *record.State) []byte {
	var b bytes.Buffer
	b.WriteString("T\t" + task + "\t" + head + "\n")
	tl := st.Timeline()
	for i, e := range st.Entries {
		l := tl[i]
		b.WriteString("R\t" + l.ID + "\t" + string(l.Kind) + "\t" + strconv.FormatInt(l.Clock, 10) + "\t" +
			flat.Replace(l.Created) + "\t" + flat.Replace(l.Actor) + "\t" + flat.Replace(l.Summary) + "\t" + l.Withdrawn + "\n")
		for _, t := range record.Texts(e) {
			b.WriteString("F\t" + t.Field + "\t" + flat.Replace(t.Text) + "\n")
		}
	}
	return b.Bytes()
}

// scanSearch appends the records of one block with a text match accepts.
func scanSearch(out []SearchHit, block []byte, match func(string) bool) []SearchHit {
	var task string
	var cur *SearchHit
	var recLine []byte // the current record's line, split only on a match
	for len(block) > 0 {
		line, rest, _ := bytes.Cut(block, []byte{'\n'})
		block = rest
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case 'T':
			task = strings.Split(string(line), "\t")[1]
		case 'R':
			cur, recLine = nil, line
		case 'F':
			field, text, _ := strings.Cut(string(line[2:]), "\t")
			if !match(text) {
				continue
			}
			rec := strings.SplitN(string(recLine), "\t", 8)
			if len(rec) != 8 {
				continue
			}
			if cur == nil {
				clock, _ := strconv.ParseInt(rec[3], 10, 64)
				out = append(out, SearchHit{Task: task, TimelineEntry: record.TimelineEntry{ID: rec[1], Kind: record.Kind(rec[2]),
					Clock: clock, Created: rec[4], Actor: rec[5], Summary: rec[6], Withdrawn: rec[7]}})
				cur = &out[len(out)-1]
			}
			cur.Matches = append(cur.Matches, record.Text{Field: field, Text: text})
		}
	}
	return out
}
