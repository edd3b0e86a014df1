package advisor

import (
	"git-reason/advisor/transport"
	"git-reason/advisor/transport/httpwire"
)

// Advisors declared over HTTP are asked, in this process, with the client
// git-reason--net gives the adapters.
func init() { transport.UseHTTP(httpwire.Post) }
