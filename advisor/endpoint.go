package advisor

import (
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
)

// Endpoint names what a consultation of d contacts, for the record: the
// scheme, host and port of the base URL (api, local_runtime, peer), never
// its path, query or credentials; or the executable the exec adapter runs,
// as found on PATH now. An advisor pointed at another server or another
// program is visible in the record it produces. "" when d names neither.
func Endpoint(d Declaration) string {
	if d.Adapter == "exec" || (d.BaseURL == "" && len(d.Command) > 0) {
		if len(d.Command) == 0 {
			return ""
		}
		if p, err := exec.LookPath(d.Command[0]); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
		return d.Command[0]
	}
	return URLEndpoint(d.BaseURL)
}

// URLEndpoint is scheme://host:port of a URL, the port made explicit; ""
// when raw is not an absolute URL with a host.
func URLEndpoint(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Hostname() == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	host := strings.ToLower(u.Hostname())
	if port == "" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
