// Package httpwire is the HTTP plumbing of the advisor transports that speak
// HTTP: the client that posts a request to an advisor or a peer, and the
// server side of a peer's review endpoint.
//
// It stands apart from package transport, and imports nothing of this
// module, so that only the program that asks advisors over HTTP or serves
// peers links net/http: package transport is handed [Post] with
// transport.UseHTTP, and everything else about the wire formats (what to
// send, how a reply or a failure is classified) stays there. Every other
// verb starts without net/http's and crypto/tls's initialisation.
package httpwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
)

// ErrBadURL is returned by [Post] for a URL no request can be made for.
var ErrBadURL = errors.New("invalid URL")

// client follows no redirect: a redirect would carry the credential
// header to wherever the server points.
var client = &http.Client{
	Transport: http.DefaultTransport.(*http.Transport).Clone(),
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// Post sends payload to url as a JSON POST with header set, following no
// redirect, and returns the reply's status, its header (canonical keys)
// and its body: at most limit+1 bytes of a 2xx body (one more than limit,
// so that the caller sees it was too large) and at most errLimit bytes of
// any other. A URL no request can be made for is [ErrBadURL]; the other
// errors are the network's, for the caller to classify.
func Post(ctx context.Context, url string, header map[string]string, payload []byte, limit, errLimit int64) (int, map[string][]string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, nil, ErrBadURL
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	n := limit + 1
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		n = errLimit
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, n))
	if err != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, body, nil
}

// Endpoint serves POST requests to path, with bodies of at most limit
// bytes, by serve: it gets the request's body and returns the status and
// the reply, sent as JSON when the status is 200 and as a plain-text error
// otherwise. Any other path is 404, any other method 405, a larger body
// 413, each refused before serve is called.
func Endpoint(path string, limit int64, serve func(ctx context.Context, body []byte) (status int, reply []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "the request's body could not be read", http.StatusBadRequest)
			return
		}
		status, reply := serve(r.Context(), body)
		if status != http.StatusOK {
			http.Error(w, string(reply), status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	})
}
