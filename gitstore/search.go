package gitstore

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"git-reason/record"
)

// searchMagic starts .git/reason/search; its number changes with the
// file's shape or with what record.Texts returns.
const searchMagic = "git reason search index 4\n"

// SearchHit is a record whose texts matched, with what log shows of it
// and the texts that matched.
type SearchHit struct {
	Task string `json:"task"`
	// Head is the task's head the index read the record at.
	Head string `json:"-"`
	record.TimelineEntry
	// DoesNotVerify is the first finding of a replay of the task's
	// history, when it does not replay clean: the entry is then as replay
	// recomputes it (Store.DeriveVerified), as log shows it. Else, for a
	// task whose latest assessment reuses a conclusion, the first finding
	// of its reuses checked against the reused tasks' refs (ReuseCheck).
	DoesNotVerify *record.Finding `json:"does_not_verify,omitempty"`
	Matches       []record.Text   `json:"matches"`
}

// Search returns the records of every task that reads with at least one
// text (record.Texts) that match accepts, in task order, then history
// order. match is called with each text as written.
func (x Index) Search(ctx context.Context, match func(text string) bool) ([]SearchHit, error) {
	return x.SearchFor(ctx, "", false, match)
}

// SearchFor is Search for a match that accepts only texts containing lit
// (in ASCII case folding, when fold): match is asked only about the texts
// that hold lit, found by one scan of the index for lit, so that a query
// costs about a read of the file, whatever the number of records. lit ""
// asks match about every text.
//
// The index is .git/reason/search, the texts of every record keyed by its
// task's head. It is searchMagic, then the header of the task refs it was
// made from (Store.latestHeader: packed-refs' identity, the loose task
// refs' count and digest), as .git/reason/latest.now keeps it while the
// task refs' stamp is unchanged (Store.refsNow): while that header is
// current no task ref moved, and the file is used as it is, without
// listing the refs. Otherwise only the tasks
// whose head moved since (a write, a pull, plain git) are read again, and
// the file is rebuilt whole when it is missing or does not parse. Then
// per task a line "T\t<task>\t<head>\t<length>" (length: the bytes of the
// lines that follow it, so that a read steps from task to task), when the
// task's history does not replay clean a line "V\t<finding>" (replay's
// first finding, JSON; else, for a task whose latest assessment reuses a
// conclusion, the first finding of its reuses' check, ReuseCheck, when
// there is one), after it per task whose conclusion that check read a
// line "U\t<task>\t<head>" (the head its ref had, "" for none: while a
// task of them is listed at another head, the reuses are checked again,
// and nothing else of the block is read again), per record a line
// "R\t<id>\t<kind>\t<clock>\t<created>\t<actor>\t<summary>\t<withdrawn>"
// (the timeline's, as read surfaces show it: recomputed by replay for a
// history that does not verify, never a stored claim of one) and per text
// "F\t<field>\t<text>", with tabs, newlines and carriage returns in
// values made spaces.
func (x Index) SearchFor(ctx context.Context, lit string, fold bool, match func(text string) bool) ([]SearchHit, error) {
	body, header, done, err := x.searchBody(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	if fold {
		lit = string(asciiLower([]byte(lit)))
	}
	if usesTerms(lit) {
		if hits, ok := x.searchTerms(body, header, lit, match); ok {
			return hits, nil
		}
	}
	countShared(len(body)) // what follows reads every task's texts
	if lit == "" || strings.ContainsAny(lit, "\t\n\r") || (fold && !foldsASCII(lit, body)) {
		return scanSearch(nil, string(body), match), nil
	}
	return scanFor(body, lit, fold, match), nil
}

// searchBody returns the index's task blocks, brought up to date with the
// refs, the header of the refs they are current for ("" when a task did
// not read: they are not) and the function that lets go of them (the file
// is mapped, not read, while it is current).
func (x Index) searchBody(ctx context.Context) ([]byte, string, func(), error) {
	s := x.Store
	path := filepath.Join(s.Repo.CommonDir, "reason", "search")
	// What the refs are is taken before they are read, so that a ref
	// moved meanwhile makes the file stale, never wrongly current.
	key, err := repoKey(filepath.Dir(path), true)
	if err != nil {
		return nil, "", nil, err
	}
	now, err := s.refsNow(filepath.Dir(path), key)
	if err != nil {
		return nil, "", nil, err
	}
	header := now.header
	if !now.fresh {
		now.keep(filepath.Dir(path), key, "", nil)
	}
	var old []byte
	if data, unmap, err := mapShared(path); err == nil {
		if rest, ok := bytes.CutPrefix(data, []byte(searchMagic)); ok {
			if body, ok := bytes.CutPrefix(rest, []byte(header)); ok {
				return body, header, unmap, nil
			}
			if i := bytes.Index(rest, []byte("\nT\t")); i >= 0 {
				old = rest[i+1:]
			}
		}
		countShared(len(data)) // stale: copied from as it is brought up to date
		defer unmap()
	}
	tasks, err := s.Tasks(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	// The task caches the read writes: at its end, packed.
	defer s.HoldCaches()()
	var file bytes.Buffer
	file.Grow(len(searchMagic) + len(header) + len(old))
	file.WriteString(searchMagic)
	file.WriteString(header)
	skipped, verified := false, false
	listed := ListedHeads(tasks)
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, "", nil, err
		}
		s.Progress("Reading tasks", i, len(tasks))
		var block []byte
		ok := false
		for len(old) > 0 {
			task, head, b, rest, parsed := nextSearchBlock(old)
			if !parsed {
				old = nil // the rest is read again
				break
			}
			if task > t.Task {
				break
			}
			old = rest
			if task == t.Task {
				block, ok = b, head == t.Head
				break
			}
		}
		var err error
		if !ok {
			// As read surfaces show it: recomputed by replay when the
			// history does not verify, its reuses checked when it does.
			var recs []*record.Record
			var st *record.State
			var reused map[string]string
			if _, recs, err = s.loadTask(t.Task, t.Head); err == nil {
				st, err = s.DeriveVerified(ctx, t.Task, t.Head, recs)
			}
			if err == nil && st.Unverified == nil && st.LatestReuses() != "" {
				var f *record.Finding
				if f, reused, err = s.reuseCheck(ctx, t.Task, t.Head, recs); err == nil {
					st = st.WithFinding(f)
				}
			}
			if err == nil {
				block = encodeSearch(t.Task, t.Head, st, reused)
			}
			verified = true
		} else if reused, records := searchReuses(block); reused != nil && MovedFrom(reused, listed) {
			// A task whose conclusion the block's reuses name moved: they
			// are checked again (the reused task derived once for every
			// task reusing it, Store.reusedAt); the records stand.
			var f *record.Finding
			if f, reused, err = s.reuseCheck(ctx, t.Task, t.Head, nil); err == nil {
				block = searchBlock(t.Task, t.Head, f, reused, records)
			}
			verified = true
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", nil, ctx.Err()
			}
			s.Skip(t.Task, err)
			skipped = true
			continue
		}
		file.Write(block)
	}
	s.Progress("Reading tasks", len(tasks), len(tasks))
	if verified {
		s.SaveVerdicts() // what was replayed is remembered
	}
	out := file.Bytes()
	body := out[len(searchMagic)+len(header):]
	if skipped {
		// Not current: the tasks that did not read are read (and
		// reported) again next time, as they are now.
		out = append([]byte(searchMagic+"\n"), body...)
		header = ""
	}
	_ = writeFileAtomic(path, out) // a cache that cannot be written is rebuilt next time
	return body, header, func() {}, nil
}

// mapShared maps the file at path and returns the function that unmaps
// it. What is looked at of it is counted by its reader (countShared): a
// query answered by the terms reads a few blocks of it. The store
// replaces its files by renaming new ones over them, so the mapped bytes
// do not change.
func mapShared(path string) ([]byte, func(), error) {
	data, unmap, _, err := mapSharedFile(path)
	return data, unmap, err
}

// mapSharedFile is mapShared and the state of the file mapped (its
// identity, size and time), which a reader that keeps the mapping
// compares with the file's now to see it replaced (sameFile).
func mapSharedFile(path string) ([]byte, func(), fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	data, unmap, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, nil, nil, err
	}
	if unmap == nil {
		unmap = func() {}
	}
	return data, unmap, fi, nil
}

// nextSearchBlock cuts the first task block off data: its task, head, the
// block whole (its "T" line first) and what follows; parsed is false when
// data does not start with a block.
func nextSearchBlock(data []byte) (task, head string, block, rest []byte, parsed bool) {
	line, after, ok := bytes.Cut(data, []byte{'\n'})
	line, found := bytes.CutPrefix(line, []byte("T\t"))
	t, line, found2 := bytes.Cut(line, []byte{'\t'})
	h, length, found3 := bytes.Cut(line, []byte{'\t'})
	if !ok || !found || !found2 || !found3 || len(h) != 40 || bytes.IndexByte(length, '\t') >= 0 {
		return "", "", nil, nil, false
	}
	n, err := strconv.Atoi(string(length))
	if err != nil || n < 0 || n > len(after) {
		return "", "", nil, nil, false
	}
	return string(t), string(h), data[:len(data)-len(after)+n], after[n:], true
}

// flat makes a value one field of a line.
var flat = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// encodeSearch is the block of task at head, derived as st, whose reuses
// were checked against the tasks of reused at their heads (nil: not
// checked).
func encodeSearch(task, head string, st *record.State, reused map[string]string) []byte {
	var b strings.Builder
	tl := st.Timeline() // decodes the entries; with those replay refused
	byID := make(map[string]*record.Entry, len(st.Entries)+len(st.Refused))
	for _, e := range st.Entries {
		byID[e.ID] = e
	}
	for _, e := range st.Refused {
		byID[e.ID] = e
	}
	for _, l := range tl {
		b.WriteString("R\t" + l.ID + "\t" + string(l.Kind) + "\t" + strconv.FormatInt(l.Clock, 10) + "\t" +
			flat.Replace(l.Created) + "\t" + flat.Replace(l.Actor) + "\t" + flat.Replace(l.Summary) + "\t" + l.Withdrawn + "\n")
		if e := byID[l.ID]; e != nil {
			for _, t := range record.Texts(e) {
				b.WriteString("F\t" + t.Field + "\t" + flat.Replace(t.Text) + "\n")
			}
		}
	}
	return searchBlock(task, head, st.Unverified, reused, []byte(b.String()))
}

// searchBlock is the block of task at head with its finding f (nil:
// none), the heads of reused and records, its "R" and "F" lines.
func searchBlock(task, head string, f *record.Finding, reused map[string]string, records []byte) []byte {
	var b bytes.Buffer
	if f != nil {
		j, _ := json.Marshal(f)
		b.WriteString("V\t" + flat.Replace(string(j)) + "\n")
	}
	for _, u := range slices.Sorted(maps.Keys(reused)) {
		b.WriteString("U\t" + u + "\t" + reused[u] + "\n")
	}
	b.Write(records)
	return []byte("T\t" + task + "\t" + head + "\t" + strconv.Itoa(b.Len()) + "\n" + b.String())
}

// searchReuses is what a block (nextSearchBlock's) holds of its task's
// reuses' check: the heads of the reused tasks it was made against (nil
// when it holds none: its reuses were not checked) and the block's
// records ("R" and "F" lines), which follow them.
func searchReuses(block []byte) (reused map[string]string, records []byte) {
	_, rest, _ := bytes.Cut(block, []byte{'\n'}) // the "T" line
	if v, ok := bytes.CutPrefix(rest, []byte("V\t")); ok {
		_, rest, _ = bytes.Cut(v, []byte{'\n'})
	}
	for {
		u, ok := bytes.CutPrefix(rest, []byte("U\t"))
		if !ok {
			return reused, rest
		}
		line, after, _ := bytes.Cut(u, []byte{'\n'})
		task, head, _ := strings.Cut(string(line), "\t")
		if reused == nil {
			reused = map[string]string{}
		}
		reused[task], rest = head, after
	}
}

// taskLine is the task and head of a "T" line ("" for a field it lacks).
func taskLine(line string) (task, head string) {
	f := strings.SplitN(line, "\t", 4)
	if len(f) > 1 {
		task = f[1]
	}
	if len(f) > 2 {
		head = f[2]
	}
	return task, head
}

// findingOf is the finding of a "V" line's rest, nil when it does not
// parse (a file not this program's: its hits then say nothing of it).
func findingOf(rest string) *record.Finding {
	var f record.Finding
	if json.Unmarshal([]byte(rest), &f) != nil || f.Code == "" {
		return nil
	}
	return &f
}

// scanSearch appends the records of body with a text match accepts.
func scanSearch(out []SearchHit, body string, match func(string) bool) []SearchHit {
	var task, head string
	var unverified *record.Finding
	var cur *SearchHit
	var recLine string // the current record's line, split only on a match
	for len(body) > 0 {
		line, rest, _ := strings.Cut(body, "\n")
		body = rest
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case 'T':
			task, head = taskLine(line)
			unverified = nil
		case 'V':
			unverified = findingOf(line[2:])
		case 'R':
			cur, recLine = nil, line
		case 'F':
			field, text, _ := strings.Cut(line[2:], "\t")
			if !match(text) {
				continue
			}
			if cur == nil {
				h, ok := hitOf(task, recLine)
				if !ok {
					continue
				}
				h.Head, h.DoesNotVerify = head, unverified
				out = append(out, h)
				cur = &out[len(out)-1]
			}
			cur.Matches = append(cur.Matches, record.Text{Field: field, Text: text})
		}
	}
	return out
}

// scanFor is scanSearch for a match that accepts only texts containing
// lit (ASCII-folded, with fold): the lines holding lit are found by
// bytes.Index over the body (folded the same way), each text line among
// them is asked of match, and a hit's record and task lines are found
// going back from it, each stretch of the body looked at once. The hits
// hold copies, never the body's bytes.
func scanFor(body []byte, lit string, fold bool, match func(string) bool) []SearchHit {
	want := []byte(lit)
	find := bytes.Index
	if fold {
		find = indexFold
	}
	var out []SearchHit
	var task, head string
	var unverified *record.Finding
	taskSeen, lastRec := 0, -1 // body before taskSeen holds no task line after task's
	for pos := 0; pos < len(body); {
		i := find(body[pos:], want)
		if i < 0 {
			break
		}
		i += pos
		start := bytes.LastIndexByte(body[:i], '\n') + 1
		end := len(body)
		if j := bytes.IndexByte(body[i:], '\n'); j >= 0 {
			end = i + j
		}
		pos = end + 1
		line := body[start:end]
		if !bytes.HasPrefix(line, []byte("F\t")) {
			continue
		}
		field, text, _ := strings.Cut(string(line[2:]), "\t")
		if !match(text) {
			continue
		}
		if t := lastLineStart(body[:start], taskSeen, "T\t"); t >= 0 {
			tl, after, _ := bytes.Cut(body[t:], []byte{'\n'})
			task, head = taskLine(string(tl))
			unverified = nil
			if v, ok := bytes.CutPrefix(after, []byte("V\t")); ok {
				v, _, _ = bytes.Cut(v, []byte{'\n'})
				unverified = findingOf(string(v))
			}
		}
		taskSeen = start
		rec := lastLineStart(body[:start], 0, "R\t")
		if rec < 0 {
			continue
		}
		if rec != lastRec {
			recLine, _, _ := bytes.Cut(body[rec:], []byte{'\n'})
			h, ok := hitOf(task, string(recLine))
			if !ok {
				continue
			}
			h.Head, h.DoesNotVerify = head, unverified
			out = append(out, h)
			lastRec = rec
		}
		out[len(out)-1].Matches = append(out[len(out)-1].Matches, record.Text{Field: field, Text: text})
	}
	return out
}

// lastLineStart is where the last line of data after from that starts
// with prefix begins (data's first line counts when from is 0), -1 when
// there is none.
func lastLineStart(data []byte, from int, prefix string) int {
	if i := bytes.LastIndex(data[from:], []byte("\n"+prefix)); i >= 0 {
		return from + i + 1
	}
	if from == 0 && bytes.HasPrefix(data, []byte(prefix)) {
		return 0
	}
	return -1
}

// hitOf is the hit of a record line of task, with no match yet; ok is
// false when the line does not parse.
func hitOf(task, recLine string) (SearchHit, bool) {
	rec := strings.SplitN(recLine, "\t", 8)
	if len(rec) != 8 || rec[0] != "R" {
		return SearchHit{}, false
	}
	clock, _ := strconv.ParseInt(rec[3], 10, 64)
	return SearchHit{Task: task, TimelineEntry: record.TimelineEntry{ID: rec[1], Kind: record.Kind(rec[2]),
		Clock: clock, Created: rec[4], Actor: rec[5], Summary: rec[6], Withdrawn: rec[7]}}, true
}

// asciiLower makes the ASCII letters of b lower case, in place.
func asciiLower(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return b
}

// indexFold is bytes.Index of lit (ASCII, lower case) in b with ASCII
// case ignored, reading b in place: it jumps (bytes.IndexByte) from one
// occurrence of lit's rarest byte, in either case, to the next, and
// compares lit around it.
func indexFold(b, lit []byte) int {
	if len(lit) == 0 {
		return 0
	}
	k := anchor(lit)
	lo, up := lit[k], lit[k]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	next := func(from int, c byte) int {
		if i := bytes.IndexByte(b[from:], c); i >= 0 {
			return from + i
		}
		return len(b)
	}
	nl, nu := -1, len(b) // the next lo and up at or after from
	if up != lo {
		nu = -1
	}
	for from := k; from < len(b); {
		if nl < from {
			nl = next(from, lo)
		}
		if nu < from {
			nu = next(from, up)
		}
		i := min(nl, nu)
		if i >= len(b) {
			return -1
		}
		if s := i - k; s+len(lit) <= len(b) && equalFold(b[s:s+len(lit)], lit) {
			return s
		}
		from = i + 1
	}
	return -1
}

// anchor is the index in lit of its rarest byte in English texts: a
// digit or punctuation first (not a space), then the least frequent
// letter.
func anchor(lit []byte) int {
	const letters = "etaoinshrdlcumwfgypbvkjxqz" // most frequent first
	best, rank := 0, -1
	for i, c := range lit {
		r := 0 // a space: the last resort
		switch {
		case 'a' <= c && c <= 'z':
			r = 1 + strings.IndexByte(letters, c)
		case c != ' ':
			r = 1 + len(letters)
		}
		if r > rank {
			best, rank = i, r
		}
	}
	return best
}

// equalFold reports whether x is lit (ASCII, lower case) with ASCII case
// ignored.
func equalFold(x, lit []byte) bool {
	for i, c := range x {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// foldsASCII reports whether an ASCII fold finds every text that
// strings.ToLower would make contain lit: lit is ASCII, and body holds no
// letter whose lower case is an ASCII letter (the Kelvin sign, the
// capital I with a dot above).
func foldsASCII(lit string, body []byte) bool {
	for i := 0; i < len(lit); i++ {
		if lit[i] >= 0x80 {
			return false
		}
	}
	return !bytes.Contains(body, []byte("\u212a")) && !bytes.Contains(body, []byte("\u0130"))
}
