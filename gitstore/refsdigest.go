package gitstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"path/filepath"
	"unicode/utf8"
)

// RefsDigest is a digest of a set of refs, names and values, that does
// not depend on their order and is kept up to date ref by ref: the sum,
// lane by lane (two 64-bit lanes, modulo 2^64), of an HMAC-SHA256 of each
// ref's name and value under the repository's key (repoKey). A catch-up
// remembers the digest of the tracking refs it integrated and updates it
// with the refs it moves; after git packs the refs (packed-refs
// rewritten, which may hold a changed ref anywhere) the digest of the
// refs as they are now says whether any moved, without reading what was
// integrated. Keyed, because the refs are what a fetch brought: without
// the key no one can make a set of refs whose digest matches another's.
type RefsDigest [2]uint64

// String is the digest in hex.
func (d RefsDigest) String() string { return fmt.Sprintf("%016x%016x", d[0], d[1]) }

// ParseRefsDigest reads String's form.
func ParseRefsDigest(s string) (RefsDigest, bool) {
	var d RefsDigest
	if len(s) != 32 {
		return d, false
	}
	_, err := fmt.Sscanf(s, "%016x%016x", &d[0], &d[1])
	return d, err == nil
}

// Digester adds and removes refs from a RefsDigest.
type Digester struct {
	mac hash.Hash
	sum []byte
	msg []byte // what is MACed of the ref at hand, its buffer kept
}

// RefsDigester returns the digester of r's refs, under the repository's
// key (made when missing).
func (r *Repo) RefsDigester() (*Digester, error) {
	key, err := repoKey(filepath.Join(r.CommonDir, "reason"), true)
	if err != nil {
		return nil, err
	}
	return &Digester{mac: hmac.New(sha256.New, key)}, nil
}

// refDigest is the two lanes of the MAC of one ref, name and value (its
// hex lowered), in g's buffers: no allocation a ref, as a clone's first
// catch-up digests every tracking ref.
func refDigest[S ~string | ~[]byte](g *Digester, name, hash S) (uint64, uint64) {
	g.msg = append(append(append(g.msg[:0], "git-reason refs v1\x00"...), name...), 0)
	at := len(g.msg)
	g.msg = append(g.msg, hash...)
	for i, c := range g.msg[at:] {
		if c >= utf8.RuneSelf { // not hex: lowered as bytes.ToLower lowers it
			g.msg = append(g.msg[:at], bytes.ToLower([]byte(hash))...)
			break
		}
		if 'A' <= c && c <= 'Z' {
			g.msg[at+i] = c + 'a' - 'A'
		}
	}
	g.mac.Reset()
	g.mac.Write(g.msg)
	g.sum = g.mac.Sum(g.sum[:0])
	return binary.BigEndian.Uint64(g.sum[:8]), binary.BigEndian.Uint64(g.sum[8:16])
}

// Add adds the ref name at hash to d.
func (g *Digester) Add(d *RefsDigest, name, hash string) {
	a, b := refDigest(g, name, hash)
	d[0] += a
	d[1] += b
}

// Remove removes the ref name at hash from d (added before).
func (g *Digester) Remove(d *RefsDigest, name, hash string) {
	a, b := refDigest(g, name, hash)
	d[0] -= a
	d[1] -= b
}

// DigestRefs is the digest of the refs under prefix as they are now: the
// packed ones, each at its loose value when loose has one (loose: the
// refs under prefix that have a loose file, LooseRefs), and how many
// refs it holds. It reads packed-refs' section of prefix in place,
// making no list of it.
func (r *Repo) DigestRefs(g *Digester, prefix string, loose []Ref) (RefsDigest, int, error) {
	var d RefsDigest
	vals := make(map[string]string, len(loose))
	for _, l := range loose {
		vals[l.Name] = l.Hash
	}
	p, err := r.packed()
	if err != nil {
		return d, 0, err
	}
	n := 0
	err = p.withPrefixBytes(prefix, func(name, hash []byte) bool {
		if _, ok := vals[string(name)]; !ok { // a loose one is added below
			a, b := refDigest(g, name, hash)
			d[0] += a
			d[1] += b
			n++
		}
		return true
	})
	if err != nil {
		return d, 0, err
	}
	for _, l := range loose {
		g.Add(&d, l.Name, l.Hash)
	}
	return d, n + len(loose), nil
}
