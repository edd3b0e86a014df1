package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// codeLifetime is how long a one-time code opens the page: long enough
// for a browser to start cold, short enough that a code read from a
// process list is stale soon after.
const codeLifetime = 2 * time.Minute

// maxCodes bounds the codes held at once (one per --open, in practice).
const maxCodes = 8

var (
	errCodeUsed    = errors.New("this one-time address was used already: open the address 'git reason web' printed (if you did not use it, another local program did: stop the page)")
	errCodeExpired = errors.New("this one-time address has expired: open the address 'git reason web' printed")
	errCodeWrong   = errors.New("wrong one-time code: open the address 'git reason web' printed")
)

// keys are the page's secrets: the token (the session cookie's value,
// printed once at start) and the one-time codes minted for a browser.
// A code stands for the token in a URL that leaves the process on an
// argument vector, where any local user can read it: it opens the page
// once, within codeLifetime, and never again, as Jupyter's
// token-to-cookie login does.
type keys struct {
	token  string
	cookie string // the name of the cookie holding the token (cookieFor)
	now    func() time.Time

	mu    sync.Mutex
	codes []oneTime
}

type oneTime struct {
	code    string
	expires time.Time
	used    bool
}

// newKeys are the keys of a page whose token is kept in the cookie named
// cookie.
func newKeys(token, cookie string) *keys { return &keys{token: token, cookie: cookie, now: time.Now} }

// isToken compares got with the token in constant time.
func (k *keys) isToken(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(k.token)) == 1
}

// mint returns a new one-time code.
func (k *keys) mint() (string, error) {
	code, err := newSecret()
	if err != nil {
		return "", err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	kept := k.codes[:0]
	for _, c := range k.codes {
		if now.Before(c.expires) {
			kept = append(kept, c)
		}
	}
	if len(kept) >= maxCodes {
		kept = kept[1:]
	}
	k.codes = append(kept, oneTime{code: code, expires: now.Add(codeLifetime)})
	return code, nil
}

// redeem spends a one-time code: nil the first time, within its lifetime;
// an error saying why otherwise. Every held code is compared, in constant
// time, so the answer's timing says nothing about which one was close.
func (k *keys) redeem(got string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	found := -1
	for i, c := range k.codes {
		if subtle.ConstantTimeCompare([]byte(got), []byte(c.code)) == 1 {
			found = i
		}
	}
	switch {
	case got == "" || found < 0:
		return errCodeWrong
	case k.codes[found].used:
		return errCodeUsed
	case !k.now().Before(k.codes[found].expires):
		return errCodeExpired
	}
	k.codes[found].used = true
	return nil
}

// newSecret is 32 random bytes in hex.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
