package cli

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"git-reason/advisor"
	"git-reason/advisor/transport"
	"git-reason/cmd/git-reason/internal/ops"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve reviews to peers: each request is answered by this repository's own available advisors",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:7411", Usage: "`ADDR` to listen on"},
			&cli.StringFlag{Name: "token-env", Value: "GIT_REASON_PEER_TOKEN", Usage: "variable holding the token peers must send (unset: no token, loopback only)"},
			&cli.StringFlag{Name: "profile", Usage: "execution profile"},
		},
		Action: func(c *cli.Context) error {
			if err := noMoreArgs(c, 0); err != nil {
				return err
			}
			sess, err := open(c)
			if err != nil {
				return err
			}
			if _, _, err := sess.Availability(c.Context, time.Now()); err != nil {
				return err
			}
			token := os.Getenv(c.String("token-env"))
			ln, err := net.Listen("tcp", c.String("listen"))
			if err != nil {
				return ops.Usage("listen on %s: %v", c.String("listen"), err)
			}
			if token == "" && !isLoopback(ln.Addr()) {
				ln.Close()
				return ops.Usage("serving beyond loopback needs a token: set %s", c.String("token-env"))
			}
			srv := &http.Server{Handler: withToken(token, transport.PeerHandler(peerConsult(sess))),
				ReadHeaderTimeout: 10 * time.Second}
			fmt.Fprintf(c.App.ErrWriter, "git reason: serving reviews on http://%s%s\n", ln.Addr(), transport.PeerPath)
			go func() {
				<-c.Context.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// withToken requires "Authorization: Bearer <token>" when a token is set.
func withToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// peerConsult answers a peer's request with this repository's available
// advisors that have every needed capability (peers excluded, so that two
// servers never ask each other in a loop), asked concurrently.
func peerConsult(sess *ops.Session) func(ctx context.Context, req transport.Request) []transport.PeerAnswer {
	return func(ctx context.Context, req transport.Request) []transport.PeerAnswer {
		cat, _, err := sess.Catalog()
		if err != nil {
			return nil
		}
		_, snap, err := sess.Availability(ctx, time.Now())
		if err != nil {
			return nil
		}
		var decls []advisor.Declaration
		for _, s := range snap {
			d, _ := cat.Advisor(s.ID)
			if s.Status.Askable() && d.Transport != advisor.TransportPeer && hasAll(s.Capabilities, req.Needs) {
				decls = append(decls, d)
			}
		}
		answers := make([]transport.PeerAnswer, len(decls))
		var wg sync.WaitGroup
		for i, d := range decls {
			wg.Add(1)
			go func(i int, d advisor.Declaration) {
				defer wg.Done()
				a := advisor.Ask(ctx, d, req)
				pa := transport.PeerAnswer{Advisor: d.ID, Status: transport.PeerFailed}
				if a.Completed() {
					pa.Status = transport.PeerCompleted
					pa.Conclusion = &transport.Conclusion{Stance: a.Conclusion.Stance, Summary: a.Conclusion.Summary,
						Recommendations: a.Conclusion.Recommendations, Risks: a.Conclusion.Risks, Confidence: a.Conclusion.Confidence}
					pa.Model = &transport.PeerModel{Name: a.Model.Name, Source: a.Model.Source}
				} else {
					pa.Failure = &transport.PeerFailure{Kind: transport.FailureKind(a.Failure.Kind), Detail: a.Failure.Detail,
						RetryAfterS: int64(a.Failure.RetryAfterS)}
				}
				answers[i] = pa
			}(i, d)
		}
		wg.Wait()
		return answers
	}
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		found := false
		for _, h := range have {
			found = found || h == n
		}
		if !found {
			return false
		}
	}
	return true
}
