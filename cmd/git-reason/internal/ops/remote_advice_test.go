package ops

import (
	"strings"
	"testing"
)

// A failed fetch or push ends with what to check, by what git said: the
// URL for a path that holds no repository, the user's access for a remote
// that refused them (ssh, and https with git's prompts off), the network
// and the URL for one that could not be reached; nothing for the rest.
// The git transport's "unable to connect to HOST:" has its reason on the
// next line, which the first line takes.
func TestRemoteAdvice(t *testing.T) {
	for _, c := range []struct{ stderr, want string }{
		{"fatal: '/x.git' does not appear to be a git repository\nfatal: Could not read from remote repository.\n", "check the URL of remote r "},
		{"git@host: Permission denied (publickey).\r\nfatal: Could not read from remote repository.\n", "check your access to remote r "},
		{"fatal: could not read Username for 'https://host': terminal prompts disabled\n", "check your access to remote r "},
		{"remote: Invalid username or password.\nfatal: Authentication failed for 'https://host/x.git/'\n", "check your access to remote r "},
		{"fatal: unable to connect to 127.0.0.1:\n127.0.0.1[0: 127.0.0.1]: errno=Connection refused\n", "check that remote r can be reached "},
		{"fatal: unable to access 'https://nohost/x.git/': Could not resolve host: nohost\n", "check that remote r can be reached "},
		{"ssh: connect to host h port 22: Connection timed out\nfatal: Could not read from remote repository.\n", "check that remote r can be reached "},
		{"fatal: the remote end hung up unexpectedly\n", ""},
	} {
		got := urlAdvice("r", c.stderr)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("after %q: %q, want %q", c.stderr, got, c.want)
		}
	}
}
