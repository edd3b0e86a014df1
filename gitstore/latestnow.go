package gitstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// latestNowFile is .git/reason/latest.now: what the task refs were when a
// command last listed them (the header of a latest file made from them),
// under the stamp taken before that listing (Repo.RefsStamp), and the
// tasks that had moved then since the latest file's header (with their
// heads and newest times). While the stamp is unchanged, no task ref
// moved since, and a command takes the header from it instead of
// listing the refs: its cost is the stats of packed-refs and of the task
// refs' directories, whatever the number of refs. It is sealed: an
// HMAC-SHA256 under the repository key (verified.key) of what follows
// the MAC's line, so that a stranger's edit (another header, another
// head for a moved task) matches nothing and the refs are listed again.
const latestNowFile = "latest.now"

// latestNowMagic begins latest.now; its number changes with its shape.
const latestNowMagic = "git reason latest.now 1\n"

// refsNow is what the task refs are now, for the latest and search files.
type refsNow struct {
	header  string // latestHeader's
	loose   []byte // the loose task refs, as latest.loose holds them (once listed)
	listed  bool   // header and loose were listed by this command
	stamp   []byte // the task refs' stamp, taken before any listing
	settled bool   // the stamp can be trusted (stampOf)
	// fresh: header is latest.now's, whose stamp is stamp; base and
	// moved are its tasks moved since the latest file whose header has
	// the digest base.
	fresh bool
	base  string
	moved map[string]TaskLatest
}

// refsNow reads latest.now and returns what the task refs are now: its
// header while its stamp is current, else the refs' listing.
func (s *Store) refsNow(dir string, key []byte) (*refsNow, error) {
	data, _ := os.ReadFile(filepath.Join(dir, latestNowFile))
	kept, ok := parseLatestNow(data, key)
	n := &refsNow{}
	n.stamp, n.settled = s.Repo.RefsStamp(TaskPrefix, kept.stamp)
	if ok && n.settled && bytes.Equal(n.stamp, kept.stamp) {
		n.header, n.fresh, n.base, n.moved = kept.header, true, kept.base, kept.moved
		return n, nil
	}
	return n, n.list(s)
}

// list lists the task refs (latestHeader), once.
func (n *refsNow) list(s *Store) error {
	if n.listed {
		return nil
	}
	header, loose, err := s.latestHeader()
	if err != nil {
		return err
	}
	n.header, n.loose, n.listed = header, loose, true
	return nil
}

// keep writes latest.now: the header, and the tasks moved since the
// latest file whose header has the digest base. Nothing is written when
// the stamp is not settled (the next command lists the refs), or when
// latest.now already says this.
func (n *refsNow) keep(dir string, key []byte, base string, moved map[string]TaskLatest) {
	if !n.settled || n.fresh && base == n.base && len(moved) == 0 && len(n.moved) == 0 {
		return
	}
	var body bytes.Buffer
	fmt.Fprintf(&body, "header %d\n%s", len(n.header), n.header)
	fmt.Fprintf(&body, "base %s\nmoved %d\n", orDash(base), len(moved))
	for _, l := range moved {
		fmt.Fprintf(&body, "%s %s %s\n", orDash(l.Head), orDash(l.Latest), l.Task)
	}
	body.Write(n.stamp)
	out := latestNowMagic + keyedMAC(key, "", body.Bytes()) + "\n" + body.String()
	_ = writeFileAtomic(filepath.Join(dir, latestNowFile), []byte(out)) // listed again next time
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fromDash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

// keptNow is what latest.now keeps.
type keptNow struct {
	header, base string
	moved        map[string]TaskLatest
	stamp        []byte
}

// parseLatestNow reads latest.now; ok is false when it is missing, does
// not read or does not match its MAC. The stamp is returned whenever the
// file reads, so that it names the directories to look at first.
func parseLatestNow(data, key []byte) (k keptNow, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(latestNowMagic))
	macHex, body, found2 := bytes.Cut(rest, []byte{'\n'})
	if !found || !found2 {
		return k, false
	}
	bad := func() (keptNow, bool) { return keptNow{}, false }
	line := func() string {
		l, after, _ := bytes.Cut(body, []byte{'\n'})
		body = after
		return string(l)
	}
	n, err := strconv.Atoi(strings.TrimPrefix(line(), "header "))
	if err != nil || n < 0 || n > len(body) {
		return bad()
	}
	k.header, body = string(body[:n]), body[n:]
	k.base = fromDash(strings.TrimPrefix(line(), "base "))
	m, err := strconv.Atoi(strings.TrimPrefix(line(), "moved "))
	if err != nil || m < 0 || m > latestDelta {
		return bad()
	}
	k.moved = map[string]TaskLatest{}
	for range m {
		f := strings.SplitN(line(), " ", 3)
		if len(f) != 3 {
			return bad()
		}
		k.moved[f[2]] = TaskLatest{Task: f[2], Head: fromDash(f[0]), Latest: fromDash(f[1])}
	}
	k.stamp = body
	mac := hmac.New(sha256.New, key)
	mac.Write(data[len(data)-len(rest)+len(macHex)+1:])
	want, err := hex.DecodeString(string(macHex))
	if err != nil || !hmac.Equal(want, mac.Sum(nil)) {
		return keptNow{stamp: k.stamp}, false
	}
	return k, true
}
