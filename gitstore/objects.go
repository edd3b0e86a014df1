package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The commits and trees the store reads and writes, encoded and decoded
// here rather than by go-git's object package: that package links an
// OpenPGP implementation and its curves (for commit signatures, which the
// store never verifies), whose package initialisation every command paid
// at start-up. Decoding gives the fields the store uses exactly as go-git's
// decoder does (differential tests hold it to that decoder), and encoding
// writes the same bytes.

// Signature is a commit's author or committer. Its fields are those of
// go-git's object.Signature, so either converts to the other.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// TreeEntry is one entry of a tree, with the fields of go-git's
// object.TreeEntry.
type TreeEntry struct {
	Name string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// commit is a decoded commit: the fields the store reads.
type commit struct {
	Hash         plumbing.Hash
	TreeHash     plumbing.Hash
	ParentHashes []plumbing.Hash
	Author       Signature
	Committer    Signature
	Message      string
}

// tree is a decoded tree.
type tree struct {
	Entries []TreeEntry
}

var (
	errMalformedCommit = errors.New("malformed commit")
	errMalformedTree   = errors.New("malformed tree")
)

// getCommit reads and decodes a commit; an object of another type is not
// found, as with go-git's object.GetCommit.
func (s *Store) getCommit(h plumbing.Hash) (*commit, error) {
	data, err := s.objectBytes(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return parseCommit(h, data)
}

func (s *Store) objectBytes(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	obj, err := s.objs.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var b bytes.Buffer
	b.Grow(int(obj.Size()))
	_, err = b.ReadFrom(rd)
	return b.Bytes(), err
}

// parseCommit decodes a commit's content. Its tree and parents are read
// as git's parse_commit_buffer reads them, which is what git's history
// walks (log, fetch, gc's reachability) see: "tree HASH\n" first, with
// more content after it, then each "parent HASH\n" line that has content
// after it; a "parent" line git does not take (one at the very end with no
// line end) is no parent, and one it refuses (a bad hash, no line end, or
// nothing after it) refuses the commit. The other fields are read as
// go-git's decoder does: author only right after the parents, committer
// only right after that place; every other header, and its continuation
// lines, is skipped; the message is whatever follows the first empty line.
func parseCommit(h plumbing.Hash, data []byte) (*commit, error) {
	c := &commit{Hash: h}
	const treeLen, parentLen = 5 + 40, 7 + 40 // "tree HASH", "parent HASH"
	if len(data) == 0 || data[0] == '\n' {
		return nil, fmt.Errorf("%w: missing tree header", errMalformedCommit)
	}
	if !bytes.HasPrefix(data, []byte("tree ")) {
		return nil, fmt.Errorf("%w: tree header must be first", errMalformedCommit)
	}
	if len(data) <= treeLen+1 || data[treeLen] != '\n' || !plumbing.IsHash(string(data[5:treeLen])) {
		return nil, fmt.Errorf("%w: bad tree hash", errMalformedCommit)
	}
	c.TreeHash = plumbing.NewHash(string(data[5:treeLen]))
	pos := treeLen + 1
	for pos+parentLen < len(data) && bytes.HasPrefix(data[pos:], []byte("parent ")) {
		if len(data) <= pos+parentLen+1 || data[pos+parentLen] != '\n' || !plumbing.IsHash(string(data[pos+7:pos+parentLen])) {
			return nil, fmt.Errorf("%w: bad parent hash", errMalformedCommit)
		}
		c.ParentHashes = append(c.ParentHashes, plumbing.NewHash(string(data[pos+7:pos+parentLen])))
		pos += parentLen + 1
	}
	head, msg := data[pos:], []byte(nil)
	if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
		head, msg = data[min(pos, i+1):i+1], data[i+2:]
	}
	const (
		atAuthor = iota
		atCommitter
		atHeaders
	)
	state := atAuthor
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		key, value, _ := strings.Cut(string(line), " ")
		if state == atAuthor {
			state = atCommitter
			if key == "author" {
				c.Author.decode([]byte(value))
				continue
			}
		}
		if state == atCommitter {
			state = atHeaders
			if key == "committer" {
				c.Committer.decode([]byte(value))
				continue
			}
		}
		// Any other header, a continuation line (" …") included: skipped.
	}
	c.Message = string(msg)
	return c, nil
}

// decode reads "Name <email> SECONDS ZONE" as go-git's Signature.Decode
// does: whatever does not parse is left empty.
func (s *Signature) decode(b []byte) {
	open := bytes.LastIndexByte(b, '<')
	closing := bytes.LastIndexByte(b, '>')
	if open == -1 || closing == -1 || closing < open {
		return
	}
	s.Name = string(bytes.Trim(b[:open], " "))
	s.Email = string(b[open+1 : closing])
	if closing+2 >= len(b) {
		return
	}
	b = b[closing+2:]
	space := bytes.IndexByte(b, ' ')
	if space == -1 {
		space = len(b)
	}
	ts, err := strconv.ParseInt(string(b[:space]), 10, 64)
	if err != nil {
		return
	}
	s.When = time.Unix(ts, 0).In(time.UTC)
	tz := space + 1
	if tz+5 > len(b) {
		return
	}
	zone := string(b[tz : tz+5])
	hours, err1 := strconv.ParseInt(zone[0:3], 10, 64)
	mins, err2 := strconv.ParseInt(zone[3:], 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	if hours < 0 {
		mins = -mins
	}
	s.When = s.When.In(time.FixedZone("", int(hours*60*60+mins*60)))
}

// encode appends "Name <email> SECONDS ZONE", as git writes it (a time
// before 1970 is written as 0).
func (s Signature) encode(b []byte) []byte {
	b = append(b, s.Name...)
	b = append(b, " <"...)
	b = append(b, s.Email...)
	b = append(b, "> "...)
	b = strconv.AppendInt(b, max(s.When.Unix(), 0), 10)
	b = append(b, ' ')
	return s.When.AppendFormat(b, "-0700")
}

// encode is the commit's content as git writes it: tree, parents, author,
// committer, an empty line, the message.
func (c *commit) encode() []byte {
	b := make([]byte, 0, 256+len(c.Message))
	b = append(b, "tree "...)
	b = append(b, c.TreeHash.String()...)
	b = append(b, '\n')
	for _, p := range c.ParentHashes {
		b = append(b, "parent "...)
		b = append(b, p.String()...)
		b = append(b, '\n')
	}
	b = append(b, "author "...)
	b = c.Author.encode(b)
	b = append(b, "\ncommitter "...)
	b = c.Committer.encode(b)
	b = append(b, "\n\n"...)
	return append(b, c.Message...)
}

// encodeTree is a tree's content as git writes it. The entries must be in
// git's order (a directory compares as its name followed by "/").
func encodeTree(entries []TreeEntry) ([]byte, error) {
	b := make([]byte, 0, len(entries)*64)
	for i, e := range entries {
		if i > 0 && treeSortName(entries[i-1]) > treeSortName(e) {
			return nil, fmt.Errorf("tree entries are not sorted: %q after %q", e.Name, entries[i-1].Name)
		}
		if strings.IndexByte(e.Name, 0) >= 0 {
			return nil, fmt.Errorf("malformed filename %q", e.Name)
		}
		b = strconv.AppendUint(b, uint64(e.Mode), 8)
		b = append(b, ' ')
		b = append(b, e.Name...)
		b = append(b, 0)
		b = append(b, e.Hash[:]...)
	}
	return b, nil
}

func treeSortName(e TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// WithSignature is a commit's content with sig inserted as its gpgsig
// header, as git's add_header_signature writes it: after the last header,
// the first line after "gpgsig ", every further line after one space.
// Whichever encoder wrote commit, this is the only change signing makes.
func WithSignature(commit, sig []byte) []byte {
	eoh := bytes.Index(commit, []byte("\n\n"))
	if eoh < 0 || len(sig) == 0 {
		return commit
	}
	out := make([]byte, 0, len(commit)+len(sig)+64)
	out = append(out, commit[:eoh+1]...)
	out = append(out, "gpgsig"...)
	for len(sig) > 0 {
		line := sig
		if i := bytes.IndexByte(sig, '\n'); i >= 0 {
			line = sig[:i+1]
		}
		out = append(out, ' ')
		out = append(out, line...)
		sig = sig[len(line):]
	}
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, commit[eoh+1:]...)
}
