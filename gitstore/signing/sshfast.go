package signing

import (
	"bytes"
	"crypto/rsa"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// AllowedSSH is the fast path of ssh verification: the keys of an
// allowed-signers file that this process may call good itself, without
// the two ssh-keygen runs git starts for each commit (find-principals,
// then verify).
//
// It only ever says "good", and only where git would: an SSHSIG
// signature in the "git" namespace, by exactly the key of one
// allowed-signers line with no options, over the commit git verifies.
// Everything else (a bad or unknown signature, another namespace, a
// certificate, a security key, a file with options, quoted or wildcard
// principals, a key on two lines, a line it cannot read as ssh-keygen
// would) is left to git, as before. TestInProcessMatchesGit runs git's own
// verification beside it and fails on any commit it calls good that git
// does not.
type AllowedSSH struct {
	keys map[string]allowedKey // the key's wire form -> its one line
}

type allowedKey struct {
	principal string
	key       ssh.PublicKey
	lines     int
}

// fastKeyTypes are the key types an allowed-signers line may have for the
// file to be read here, all of them plain keys that every OpenSSH since
// SSHSIG (8.2) loads; any other line (options, a certificate authority, a
// security key, DSA, a type this process does not know) leaves the whole
// file to git, since ssh-keygen stops at a line it cannot load and would
// then not find keys listed after it.
var fastKeyTypes = map[string]bool{
	ssh.KeyAlgoED25519: true, ssh.KeyAlgoECDSA256: true, ssh.KeyAlgoECDSA384: true,
	ssh.KeyAlgoECDSA521: true, ssh.KeyAlgoRSA: true,
}

// ParseAllowedSSH reads an allowed-signers file's content for the fast
// path; nil when any line is not of the plain form `PRINCIPAL KEYTYPE
// BASE64 [COMMENT]` (or blank, or a comment): such a file is left to git
// whole.
func ParseAllowedSSH(data []byte) *AllowedSSH {
	a := &AllowedSSH{keys: map[string]allowedKey{}}
	for _, line := range strings.Split(string(data), "\n") {
		for _, r := range line {
			if (r < 0x20 && r != '\t') || r == 0x7f {
				return nil
			}
		}
		words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(words) == 0 || strings.HasPrefix(words[0], "#") {
			continue
		}
		if len(words) < 3 || strings.ContainsAny(words[0], `",*?!`) || !fastKeyTypes[words[1]] {
			return nil
		}
		key, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(words[1] + " " + words[2]))
		if err != nil || len(rest) != 0 || key.Type() != words[1] {
			return nil
		}
		if ck, ok := key.(ssh.CryptoPublicKey); ok {
			if r, ok := ck.CryptoPublicKey().(*rsa.PublicKey); ok && r.N.BitLen() < 2048 {
				return nil
			}
		}
		wire := string(key.Marshal())
		k := a.keys[wire]
		k.principal, k.key, k.lines = words[0], key, k.lines+1
		a.keys[wire] = k
	}
	return a
}

// Good reports whether git would call sig a good signature of payload by
// an allowed signer, and if so by whom (the allowed-signers principal)
// with which key (its SHA256 fingerprint). false means "ask git", never
// "bad".
func (a *AllowedSSH) Good(sig, payload []byte) (principal, fingerprint string, ok bool) {
	if a == nil || !plainArmor(sig) {
		return "", "", false
	}
	s, err := sshsig.Unarmor(sig)
	if err != nil || s.Namespace != "git" || len(s.Signature.Rest) != 0 {
		return "", "", false
	}
	k, found := a.keys[string(s.PublicKey.Marshal())]
	if !found || k.lines != 1 {
		return "", "", false
	}
	if sshsig.Verify(bytes.NewReader(payload), s, k.key, s.HashAlgorithm, "git") != nil {
		return "", "", false
	}
	return k.principal, ssh.FingerprintSHA256(k.key), true
}

// plainArmor reports whether sig is exactly an SSH signature's armor as
// ssh-keygen writes it: the begin line, lines of base64, the end line,
// nothing before or after (PEM decoding would skip text ssh-keygen does
// not).
func plainArmor(sig []byte) bool {
	const begin, end = "-----BEGIN SSH SIGNATURE-----\n", "-----END SSH SIGNATURE-----\n"
	s := string(sig)
	if !strings.HasPrefix(s, begin) || !strings.HasSuffix(s, end) || len(s) <= len(begin)+len(end) {
		return false
	}
	body := s[len(begin) : len(s)-len(end)]
	if !strings.HasSuffix(body, "\n") {
		return false
	}
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if line == "" {
			return false
		}
		for _, r := range line {
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
				return false
			}
		}
	}
	return true
}
