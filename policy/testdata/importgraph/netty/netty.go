package netty

import nethttp "net/http"

var _ = nethttp.Get
