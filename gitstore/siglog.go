package gitstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"git-reason/gitstore/git"
)

// A signature log keeps what read surfaces judged of a task's signatures,
// in .git/reason/signatures/<task digest>.log: an entry per head a
// surface showed, appended, each two lines. The first is the checks of
// the commits new since the entry before (opaque to the store: the
// operations layer's JSON), the second "S <head> <allowed> <segments>
// <checks length> <mac> <summary>", the summary being the whole task's
// at that head (opaque too). So `status` reads the last line alone (the
// end of the file) and appends the few checks a new record brings,
// never reading or writing the whole task's checks; a surface that
// needs each record's signature reads every entry (SignatureLog).
//
// Each entry carries an HMAC-SHA256, under the key beside
// verified.journal, of its task, head, allowed-signers digest, position,
// checks and summary: an entry edited, copied from another task or
// written without the key is not read, and what it said is judged again.
// The log is rewritten whole, as one entry, when a writer cannot go on
// from its last entry or it holds maxSigSegments.
const sigLogMagic = "git reason signatures 1\n"

// maxSigSegments bounds a signature log's entries.
const maxSigSegments = 64

// SigEntry is one entry of a signature log.
type SigEntry struct {
	Head, Allowed string
	Checks        []byte // the checks this entry adds
	Summary       []byte // the task's summary at Head
	// Segments is the entry's position, 1 for the first; Size the log's
	// length up to and with it (what an append goes on from).
	Segments int
	Size     int64
}

func (s *Store) sigLogPath(task string) string {
	return filepath.Join(s.Repo.CommonDir, "reason", "signatures", fileName(task)+".log")
}

func sigMAC(key []byte, task, head, allowed string, segments int, checksSum string, summary []byte) string {
	return keyedMAC(key, "git-reason signatures v1\x00"+task+"\x00"+head+"\x00"+allowed+"\x00"+
		strconv.Itoa(segments)+"\x00"+checksSum+"\x00", summary)
}

// sigEntry is the two lines of an entry; nil when a part cannot be held.
func sigEntry(key []byte, task string, e *SigEntry) []byte {
	if bytes.IndexByte(e.Checks, '\n') >= 0 || bytes.IndexByte(e.Summary, '\n') >= 0 ||
		len(e.Head) != 40 || !isHex(e.Head) || e.Allowed == "" || strings.ContainsAny(e.Allowed, " \n") {
		return nil
	}
	out := append(append([]byte{}, e.Checks...), '\n')
	sum := checksSum(e.Checks)
	out = append(out, "S "+e.Head+" "+e.Allowed+" "+strconv.Itoa(e.Segments)+" "+strconv.Itoa(len(e.Checks))+" "+
		sum+" "+sigMAC(key, task, e.Head, e.Allowed, e.Segments, sum, e.Summary)+" "...)
	return append(append(out, e.Summary...), '\n')
}

func checksSum(checks []byte) string {
	sum := sha256.Sum256(checks)
	return hex.EncodeToString(sum[:])
}

// sigLine is an entry's second line as read.
type sigLine struct {
	head, allowed       string
	segments, checksLen int
	checksSum, mac      string
	summary             []byte
}

// parseSigLine reads an entry's second line (without its newline).
func parseSigLine(line []byte) (sigLine, bool) {
	f := bytes.SplitN(line, []byte{' '}, 8)
	if len(f) != 8 || string(f[0]) != "S" {
		return sigLine{}, false
	}
	n, err1 := strconv.Atoi(string(f[3]))
	m, err2 := strconv.Atoi(string(f[4]))
	if err1 != nil || err2 != nil || n < 1 || m < 0 {
		return sigLine{}, false
	}
	return sigLine{head: string(f[1]), allowed: string(f[2]), segments: n, checksLen: m,
		checksSum: string(f[5]), mac: string(f[6]), summary: f[7]}, true
}

// verify reports whether l's MAC is the one key gives it for task.
func (l sigLine) verify(key []byte, task string) bool {
	return hmac.Equal([]byte(l.mac), []byte(sigMAC(key, task, l.head, l.allowed, l.segments, l.checksSum, l.summary)))
}

// SignatureTail is the last entry of task's signature log, read from the
// end of the file (its summary line only: Checks is nil); false when
// there is none whose MAC matches.
func (s *Store) SignatureTail(task string) (*SigEntry, bool) {
	key := s.memoKey()
	if key == nil {
		return nil, false
	}
	f, err := os.Open(s.sigLogPath(task))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= int64(len(sigLogMagic)) {
		return nil, false
	}
	size := fi.Size()
	// The summary line is short (counts and signers); read more from the
	// end until the line before it starts in what was read.
	for chunk := int64(1024); ; chunk *= 4 {
		if chunk > size {
			chunk = size
		}
		buf := make([]byte, chunk)
		if _, err := f.ReadAt(buf, size-chunk); err != nil && err != io.EOF {
			return nil, false
		}
		countSigBytes(len(buf))
		if len(buf) == 0 || buf[len(buf)-1] != '\n' {
			return nil, false // cut short: the writer's entry did not end
		}
		start := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
		if start < 0 {
			if chunk == size {
				return nil, false
			}
			continue
		}
		l, ok := parseSigLine(buf[start+1 : len(buf)-1])
		if !ok || size-chunk+int64(start) < int64(len(sigLogMagic)+l.checksLen) || !l.verify(key, task) {
			return nil, false
		}
		return &SigEntry{Head: l.head, Allowed: l.allowed, Summary: append([]byte{}, l.summary...),
			Segments: l.segments, Size: size}, true
	}
}

// SignatureLog is every entry of task's signature log that reads, first
// to last: the entries up to the first that does not read (its MAC, or a
// position out of order).
func (s *Store) SignatureLog(task string) []SigEntry {
	key, data, rest := s.readKeyed(s.sigLogPath(task), sigLogMagic)
	if rest == nil {
		return nil
	}
	countSigBytes(len(data))
	var out []SigEntry
	for len(rest) > 0 {
		checks, next, ok1 := bytes.Cut(rest, []byte{'\n'})
		line, after, ok2 := bytes.Cut(next, []byte{'\n'})
		if !ok1 || !ok2 {
			break
		}
		l, ok := parseSigLine(line)
		if !ok || l.checksLen != len(checks) || l.segments != len(out)+1 || l.checksSum != checksSum(checks) || !l.verify(key, task) {
			break
		}
		out = append(out, SigEntry{Head: l.head, Allowed: l.allowed, Checks: checks, Summary: l.summary,
			Segments: l.segments, Size: int64(len(data) - len(after))})
		rest = after
	}
	return out
}

// AppendSignatures adds e (the checks new since last, and the summary at
// its head) to task's signature log after last, the entry it goes on
// from as read, when the log is still last.Size long and holds fewer
// than maxSigSegments entries. false: nothing appended, and the caller
// writes the log anew (WriteSignatures) or leaves it to the next reader.
func (s *Store) AppendSignatures(task string, last *SigEntry, e SigEntry) bool {
	key := s.memoKey()
	if key == nil {
		return false
	}
	path := s.sigLogPath(task)
	if last != nil && last.Segments < maxSigSegments {
		e.Segments = last.Segments + 1
		if b := sigEntry(key, task, &e); b != nil {
			countSigBytes(len(b))
			return git.AppendFile(path, b, 0, 0, false, last.Size) == nil
		}
	}
	return false
}

// WriteSignatures writes task's signature log anew holding e alone (the
// checks of every commit up to its head).
func (s *Store) WriteSignatures(task string, e SigEntry) {
	key := s.memoKey()
	if key == nil {
		return
	}
	e.Segments = 1
	b := sigEntry(key, task, &e)
	path := s.sigLogPath(task)
	if b == nil || git.MkdirAll(filepath.Dir(path), 0o777) != nil {
		return
	}
	countSigBytes(len(sigLogMagic) + len(b))
	if writeFileAtomic(path, append([]byte(sigLogMagic), b...)) == nil {
		_ = os.Remove(strings.TrimSuffix(path, ".log") + ".json") // the whole-JSON cache of earlier releases
	}
}
