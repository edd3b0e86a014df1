package signing

import (
	"reflect"
	"testing"
)

func TestListAllowed(t *testing.T) {
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE0lvF4yzsQSctTZ+XvFdcJZBLqyv8vmxas6AkbeU6iU"
	const fp = "ssh-ed25519 SHA256:oRwmphI6LsHmqdsMCUYvQ1BGIaH6K/5GxNJcQVM/ZBc" // ssh-keygen -lf
	data := "# team\n\n" +
		"ada@example.invalid " + key + " ada's laptop\n" +
		"ops@example.invalid,bob@example.invalid namespaces=\"git, file\" " + key + "\r\n" +
		"*@example.invalid cert-authority " + key + "\n" +
		"eve@example.invalid not-a-key\n"
	want := []AllowedEntry{
		{Principals: "ada@example.invalid", Key: fp},
		{Principals: "ops@example.invalid,bob@example.invalid", Options: "namespaces=\"git, file\"", Key: fp},
		{Principals: "*@example.invalid", Options: "cert-authority", Key: fp},
		{Line: "eve@example.invalid not-a-key"},
	}
	if got := ListAllowed([]byte(data)); !reflect.DeepEqual(got, want) {
		t.Errorf("ListAllowed =\n%+v\nwant\n%+v", got, want)
	}
	if got := ListAllowed([]byte("# only a comment\n")); len(got) != 0 {
		t.Errorf("ListAllowed of a comment = %v, want none", got)
	}
}
