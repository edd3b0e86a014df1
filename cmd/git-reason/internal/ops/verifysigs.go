package ops

import (
	"bytes"
	"context"
	"strings"

	"git-reason/gitstore"
	"git-reason/gitstore/signing"
)

// verifySignaturesFile is the sealed journal (gitstore.Sealed) of every
// task's signature checks at its head, as git judged them, for verify.
const verifySignaturesFile = "verify-signatures.journal"

// headSignatures is signaturesOf the heads of tasks (task -> head) for
// verify: a head whose checks .git/reason/verify-signatures.journal keeps
// for the configuration signatures are judged by now (SignaturesDigest),
// under a MAC, costs no git process; the others are asked of git together
// and kept when what git said of them does not depend on the time or a
// keyring (keepable). The memory of removed keys (signing.Memory) is
// applied to every check after, as signaturesOf applies it.
func (e *Session) headSignatures(ctx context.Context, tasks []string, heads map[string]string, all bool) (map[string][]signing.Check, error) {
	digest, err := e.SignaturesDigest()
	if err != nil {
		return nil, err
	}
	j := gitstore.OpenSealed(e.Repo, verifySignaturesFile, "signatures "+digest)
	byHead := make(map[string][]signing.Check, len(tasks))
	var missing []string
	askedFor := map[string][]string{} // head -> tasks at it that were not kept
	for _, t := range tasks {
		h := heads[t]
		if _, done := byHead[h]; done {
			continue
		}
		if data, ok := j.Get(t, h); ok {
			if cs, ok := decodeChecks(data); ok {
				byHead[h] = cs
				continue
			}
		}
		if _, asked := askedFor[h]; !asked {
			missing = append(missing, h)
		}
		askedFor[h] = append(askedFor[h], t)
	}
	if len(missing) > 0 {
		fresh, err := e.verifyHeads(ctx, missing)
		if err != nil {
			return nil, err
		}
		for _, h := range missing {
			cs, listed := fresh[h]
			if !listed {
				continue // git could not list its history: nothing to keep
			}
			byHead[h] = cs
			if data, ok := encodeChecks(cs); ok {
				for _, t := range askedFor[h] {
					j.Put(t, h, data)
				}
			}
		}
		var order []string
		if all {
			order = tasks
		}
		j.Save(order)
	}
	e.applyMemory(byHead) // after the Puts: what is kept is git's verdict before it
	return byHead, nil
}

// keepable reports whether git's verdict on a commit holds for as long as
// the configuration SignaturesDigest covers: an unsigned commit, a bad
// signature, or an ssh signature judged against the allowed signers (the
// verdicts signing.Verdicts keeps under the same digest). OpenPGP and
// X.509 verdicts depend on keyrings and on the time, and are asked again.
func keepable(c signing.Check) bool {
	switch {
	case c.Status == signing.Unsigned || c.Status == signing.Bad:
		return true
	case c.Status == signing.Expired:
		return false
	}
	return strings.HasPrefix(c.Key, "SHA256:")
}

// encodeChecks is a head's checks as an entry's data: a line per check,
// its fields separated by NUL; false when one is not keepable or holds a
// NUL or a newline.
func encodeChecks(cs []signing.Check) ([]byte, bool) {
	var b bytes.Buffer
	for _, c := range cs {
		if !keepable(c) {
			return nil, false
		}
		for i, f := range []string{c.Commit, c.Record, string(c.Status), c.Signer, c.Key, c.Actor} {
			if strings.ContainsAny(f, "\x00\n") {
				return nil, false
			}
			if i > 0 {
				b.WriteByte(0)
			}
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), true
}

// decodeChecks reads what encodeChecks wrote. Its fields share one
// string of data: a head's checks cost two allocations, not one a field.
func decodeChecks(data []byte) ([]signing.Check, bool) {
	cs := make([]signing.Check, 0, bytes.Count(data, []byte{'\n'}))
	rest := string(data)
	var f [6]string
	for len(rest) > 0 {
		line, next, ok := strings.Cut(rest, "\n")
		if !ok {
			return nil, false
		}
		for i := range f {
			if i == len(f)-1 {
				if strings.IndexByte(line, 0) >= 0 {
					return nil, false
				}
				f[i] = line
				break
			}
			var found bool
			if f[i], line, found = strings.Cut(line, "\x00"); !found {
				return nil, false
			}
		}
		cs = append(cs, signing.Check{Commit: f[0], Record: f[1], Status: signing.Status(f[2]), Signer: f[3], Key: f[4], Actor: f[5]})
		rest = next
	}
	return cs, true
}
