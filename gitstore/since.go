package gitstore

import (
	"bytes"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// SinceCommit is one commit of a line of history as its signature check
// needs it, read in this process.
type SinceCommit struct {
	Hash string
	// Author is "Name <email>", as git's "%an <%ae>" prints it.
	Author string
	// Record is the commit's Reason-Record trailer ("" when it has none).
	Record string
	// Signed: the commit's header carries a signature (a gpgsig header
	// of any hash algorithm), which only git can judge.
	Signed bool
}

// LinearSince returns the commits of head not reachable from base, newest
// first, as `git rev-list head --not base` lists them (base "": every
// commit of head, as `git rev-list head`), read in this process; false
// when that answer needs git: a merge on the way, more than max commits,
// a root reached before base, an object that does not read, or a commit
// whose Reason-Record trailer is not exactly one line.
func (s *Store) LinearSince(head, base string, max int) ([]SinceCommit, bool) {
	if !isHex(head) || len(head) != 40 || base != "" && (!isHex(base) || len(base) != 40) {
		return nil, false
	}
	var out []SinceCommit
	for c := head; c != base; {
		if len(out) >= max {
			return nil, false
		}
		h := plumbing.NewHash(c)
		if s.checkSize(h, maxCommitBytes, "commit") != nil {
			return nil, false
		}
		data, err := s.objectBytes(plumbing.CommitObject, h)
		if err != nil {
			return nil, false
		}
		cm, err := decodeCommit(c, data)
		root := err == nil && len(cm.ParentHashes) == 0 && base == ""
		if err != nil || len(cm.ParentHashes) != 1 && !root {
			return nil, false
		}
		if strings.Count(cm.Message, "\nReason-Record:") > 1 {
			return nil, false
		}
		out = append(out, SinceCommit{Hash: c, Author: cm.Author.Name + " <" + cm.Author.Email + ">",
			Record: Trailers(cm.Message)["Reason-Record"], Signed: signedHeader(data)})
		if root {
			break
		}
		c = cm.ParentHashes[0].String()
	}
	return out, true
}

// signedHeader reports whether a commit's header (the lines before the
// first empty one) has a signature header: gpgsig, gpgsig-sha256 or any
// other spelling git may add.
func signedHeader(data []byte) bool {
	header, _, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range bytes.Split(header, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("gpgsig")) {
			return true
		}
	}
	return false
}
