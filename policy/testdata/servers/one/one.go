package one

import (
	nethttp "net/http"

	"git-reason/cmd/git-reason/internal/guard"
)

func servers(h nethttp.Handler, t guard.Timeouts) {
	_ = guard.Server(h, guard.API) // the production bounds: allowed
	_ = &nethttp.Server{Handler: h}
	_ = new(nethttp.Server)
	var s nethttp.Server
	_ = nethttp.ListenAndServe(":0", h)
	_ = guard.Server(h, t)
	_ = s
	_ = guard.Server(h, guard.Timeouts{})
}
