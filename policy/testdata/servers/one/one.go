package one

import (
	"context"
	"net"
	nethttp "net/http"

	"git-reason/cmd/git-reason/internal/guard"
)

func servers(ctx context.Context, ln net.Listener, h nethttp.Handler, l guard.Limits) {
	_ = guard.Run(ctx, ln, h, guard.API, "", "") // the production bounds: allowed
	_ = &nethttp.Server{Handler: h}
	_ = new(nethttp.Server)
	var s nethttp.Server
	_ = nethttp.ListenAndServe(":0", h)
	_ = guard.Run(ctx, ln, h, l, "", "")
	_ = s
	_ = guard.Run(ctx, ln, h, guard.Limits{}, "", "")
}
