package settings

import (
	"cmp"
	"os"
	"strconv"
	"strings"
	"sync"
)

// OrDefault is the identity with git's defaults in place of a missing
// part, as git fills the line it adds to a ref's log when no identity is
// configured (ident.c without IDENT_STRICT): the account's full name from
// its passwd entry (up to the first comma, "&" as the login capitalised),
// else its login; and login@host, a host that names no domain completed
// with ".(none)" (git first asks the resolver for a canonical name, which
// this does not).
func (i Identity) OrDefault() Identity {
	if i.Name != "" && i.Email != "" {
		return i
	}
	d := defaultIdentity()
	i.Name, i.Email = cmp.Or(i.Name, d.Name), cmp.Or(i.Email, d.Email)
	return i
}

// defaultIdentity is git's default identity (OrDefault), worked out once
// a process: a pull that moves many task refs without an identity asks
// for it at each move.
var defaultIdentity = sync.OnceValue(func() Identity {
	login, full := account()
	full, _, _ = strings.Cut(full, ",")
	if login != "" {
		full = strings.ReplaceAll(full, "&", strings.ToUpper(login[:1])+login[1:])
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "(none)"
	}
	if !strings.Contains(host, ".") {
		host += ".(none)"
	}
	return Identity{Name: cmp.Or(withoutCrud(full), withoutCrud(login)), Email: withoutCrud(login + "@" + host)}
})

// withoutCrud is a name or an address as git puts it into a commit
// (ident.c's strbuf_addstr_without_crud): without the blanks and
// punctuation git strips from either end, and without the newlines and
// angle brackets that delimit the parts of an ident line anywhere. What
// git would not write, "Ada <a> B" or a newline in user.name, made
// commits git fsck calls badEmail or missingEmail, which a server with
// receive.fsckObjects refuses, and an actor that differs from the
// commit's author, which verify refuses.
func withoutCrud(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool {
		return r <= ' ' || strings.ContainsRune(",:;<>\"\\'.", r)
	})
	return strings.NewReplacer("\n", "", "<", "", ">", "").Replace(s)
}

// account is the login and full name (GECOS) of this process's user, as
// git's ident.c reads them from the passwd entry of getuid(), from
// /etc/passwd; $USER (else "unknown") and no name when it has none. Not
// os/user: with cgo on, it links the C library, and the program, linked
// statically otherwise, would start through the dynamic loader, some
// milliseconds more at every command, for a line written rarely.
func account() (login, full string) {
	login = cmp.Or(os.Getenv("USER"), "unknown")
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return login, ""
	}
	uid := strconv.Itoa(os.Getuid())
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimRight(line, "\n"), ":")
		if len(f) >= 5 && f[2] == uid && f[0] != "" {
			return f[0], f[4]
		}
	}
	return login, ""
}
