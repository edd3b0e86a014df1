package guard

import (
	"net"
	"os"
	"strings"
	"testing"
)

// TestReach: a server on one address is reached at its URL; one on every
// interface (no host, 0.0.0.0 or ::, reported as [::] or 0.0.0.0) is
// named so, by its port, with URLs a client can type: loopback from this
// machine, the first allowed host (its port added when it has none) from
// elsewhere. No line names [::] or 0.0.0.0.
func TestReach(t *testing.T) {
	any6 := &net.TCPAddr{IP: net.IPv6unspecified, Port: 41073}
	any4 := &net.TCPAddr{IP: net.IPv4zero, Port: 41073}
	for _, c := range []struct {
		name   string
		addr   net.Addr
		scheme string
		allow  []string
		want   string
	}{
		{"loopback", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7411}, "http", nil, "http://127.0.0.1:7411/v1/review"},
		{"ipv6 loopback", &net.TCPAddr{IP: net.IPv6loopback, Port: 7411}, "http", nil, "http://[::1]:7411/v1/review"},
		{"one address", &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, "https", nil, "https://192.168.1.5:7411/v1/review"},
		{"every interface", any6, "http", nil, "every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine"},
		{"every IPv4 interface", any4, "https", nil, "every interface, port 41073: https://127.0.0.1:41073/v1/review from this machine"},
		{"an allowed host", any6, "http", []string{"build.example", "other.example"},
			"every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine, http://build.example:41073/v1/review from elsewhere"},
		{"an allowed host with its port", any6, "https", []string{"reviews.example:443"},
			"every interface, port 41073: https://127.0.0.1:41073/v1/review from this machine, https://reviews.example:443/v1/review from elsewhere"},
		{"an allowed IPv6 address", any6, "http", []string{"fd00::5"},
			"every interface, port 41073: http://127.0.0.1:41073/v1/review from this machine, http://[fd00::5]:41073/v1/review from elsewhere"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Reach(c.addr, c.scheme, "/v1/review", c.allow); got != c.want {
				t.Errorf("Reach = %q\n want %q", got, c.want)
			}
		})
	}
}

// TestExposure: a server on every interface is warned about by its port,
// never by [::]; one on an address by that address; and the warning that
// only loopback names are accepted gives as an example of --allow-host
// the address listened on, or on every interface this machine's name.
func TestExposure(t *testing.T) {
	every := Exposure(&net.TCPAddr{IP: net.IPv6unspecified, Port: 41073}, false, nil)
	if len(every) != 2 || !strings.HasPrefix(every[0], "warning: serving on every interface (port 41073) without TLS: ") {
		t.Errorf("every interface: %q", every)
	}
	if name, err := os.Hostname(); err == nil && name != "" && len(every) == 2 &&
		!strings.Contains(every[1], "name this machine with --allow-host (such as --allow-host "+name+") for clients elsewhere") {
		t.Errorf("no example of --allow-host: %q", every[1])
	}
	one := Exposure(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, false, []string{"build.example"})
	if len(one) != 1 || !strings.HasPrefix(one[0], "warning: serving on 192.168.1.5:7411 beyond loopback without TLS: ") {
		t.Errorf("one address: %q", one)
	}
	at := Exposure(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7411}, true, nil)
	if len(at) != 1 || at[0] != "warning: only loopback Host names are accepted: name this machine with --allow-host (such as --allow-host 192.168.1.5) for clients elsewhere" {
		t.Errorf("one address, no allowed host: %q", at)
	}
	for _, lines := range [][]string{every, one, at} {
		for _, l := range lines {
			if strings.Contains(l, "[::]") || strings.Contains(l, "0.0.0.0") {
				t.Errorf("a warning names an address no client can type: %q", l)
			}
		}
	}
	if got := Exposure(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7411}, false, nil); got != nil {
		t.Errorf("loopback: %q", got)
	}
}

// TestOnLoopback: an address with no host listens on loopback; any other
// is kept as given.
func TestOnLoopback(t *testing.T) {
	for in, want := range map[string]string{
		":7412": "127.0.0.1:7412", ":0": "127.0.0.1:0", "0.0.0.0:7412": "0.0.0.0:7412",
		"[::]:7412": "[::]:7412", "localhost:0": "localhost:0", "nonsense": "nonsense",
	} {
		if got := OnLoopback(in); got != want {
			t.Errorf("OnLoopback(%q) = %q, want %q", in, got, want)
		}
	}
}
