package settings

import (
	"os"
	"strings"
	"testing"
)

// A configured part of an identity is kept and only a missing one takes
// git's default: login@host, the host completed with ".(none)" when it
// names no domain.
func TestIdentityOrDefault(t *testing.T) {
	full := Identity{Name: "Ada", Email: "ada@example.invalid"}
	if got := full.OrDefault(); got != full {
		t.Errorf("configured identity became %v", got)
	}
	got := Identity{Name: "Ada"}.OrDefault()
	if got.Name != "Ada" || !strings.Contains(got.Email, "@") || strings.HasSuffix(got.Email, "@") {
		t.Errorf("name only: %v", got)
	}
	if host, _ := os.Hostname(); !strings.Contains(host, ".") && !strings.HasSuffix(got.Email, ".(none)") {
		t.Errorf("host %q names no domain, email %q lacks .(none)", host, got.Email)
	}
	if got := (Identity{Email: "ada@example.invalid"}).OrDefault(); got.Name == "" || got.Email != "ada@example.invalid" {
		t.Errorf("email only: %v", got)
	}
}
