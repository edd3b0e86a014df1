package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"git-reason/record"
)

func TestPeerContract(t *testing.T) {
	runContract(t, peerFake())
}

// peerFake is another git reason instance: the real review endpoint, whose
// consult reports a failed advisor first and then one that answered.
//
// A peer answers with a structured document, never with text, so an answer
// text that does not normalise stands for a peer whose response body is
// that text: blank text a blank body (empty), garbage a garbage body
// (malformed). A model not reported stands for a peer that only declared
// one, which the adapter must not pass on as reported.
func peerFake() httpResponder {
	return httpResponder{name: "peer", wireFake: wireFake{
		path: PeerPath,
		target: func(base string) Target {
			return Target{ID: "fake-peer", Transport: "peer", Adapter: "peer",
				BaseURL: strings.TrimSuffix(base, basePath), Credential: credVar}
		},
		credential: func(r *http.Request) (string, bool) {
			value, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !bearer {
				value = ""
			}
			return value, true // the endpoint checks the body itself
		},
		answer: func(w http.ResponseWriter, r *http.Request, text, model string) {
			c, err := Normalise(text)
			if err != nil {
				w.Write([]byte(text))
				return
			}
			peerHandler(func(context.Context, Request) []PeerAnswer {
				return []PeerAnswer{
					{Advisor: "first-fake", Status: PeerFailed, Failure: &record.Failure{Kind: string(Timeout)}},
					{Advisor: "second-fake", Status: PeerCompleted, Conclusion: &c, Model: peerModel(model)},
				}
			}).ServeHTTP(w, r)
		},
	}}
}

func peerModel(reported string) *record.Model {
	if reported == "" {
		return &record.Model{Name: "declared-model-x", Source: "declared"}
	}
	return &record.Model{Name: reported, Source: "reported"}
}

func TestPeerHandlerRefusals(t *testing.T) {
	called := 0
	srv := httptest.NewServer(peerHandler(func(context.Context, Request) []PeerAnswer {
		called++
		return nil
	}))
	t.Cleanup(srv.Close)
	body := mustJSON(PeerRequest{Request: testRequest}, false)
	tests := []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/v1/other", body, http.StatusNotFound},
		{"GET", PeerPath, "", http.StatusMethodNotAllowed},
		{"POST", PeerPath, "{", http.StatusBadRequest},
		{"POST", PeerPath, body + body, http.StatusBadRequest},
		{"POST", PeerPath, `{"request": {"subject": "no question"}}`, http.StatusBadRequest},
		{"POST", PeerPath, `{"request": {"question": "` + strings.Repeat("q", PeerRequestLimit) + `"}}`, http.StatusRequestEntityTooLarge},
		{"POST", PeerPath, body, http.StatusOK},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s %.40q: status %d, want %d", tc.method, tc.path, tc.body, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusOK && strings.TrimSpace(string(got)) != `{"answers":[]}` {
			t.Errorf("nil answers served as %s", got)
		}
	}
	if called != 1 {
		t.Errorf("consult called %d times, want once, for the one good request", called)
	}
}

func TestPeerOutcomes(t *testing.T) {
	c := testConclusion
	tests := []struct {
		name      string
		answers   []PeerAnswer
		want      FailureKind
		wantModel string
		declared  bool // the model is passed on marked declared
		detail    []string
	}{
		{name: "first completed wins", wantModel: "model-a", answers: []PeerAnswer{
			{Advisor: "one", Status: PeerFailed, Failure: &record.Failure{Kind: string(RateLimit), RetryAfterS: 30}},
			{Advisor: "two", Status: PeerCompleted, Conclusion: &c, Model: &record.Model{Name: "model-a", Source: "reported"}},
			{Advisor: "three", Status: PeerCompleted, Conclusion: &record.Answer{Stance: StanceOppose}, Model: &record.Model{Name: "model-b", Source: "reported"}},
		}},
		{name: "declared model is passed on marked declared", wantModel: "model-a", declared: true, answers: []PeerAnswer{
			{Advisor: "one", Status: PeerCompleted, Conclusion: &c, Model: &record.Model{Name: "model-a", Source: "declared"}},
		}},
		{name: "none completed is unavailable", want: Unavailable, detail: []string{"(advisor-1 authentication, advisor-2 timeout)"}, answers: []PeerAnswer{
			{Advisor: "one", Status: PeerFailed, Failure: &record.Failure{Kind: string(Authentication)}},
			{Advisor: "two", Status: PeerFailed, Failure: &record.Failure{Kind: string(Timeout)}},
		}},
		// The detail is this side's words: a peer's label and an unknown
		// kind are not repeated (the writer refuses their controls).
		{name: "a peer's own texts are not repeated", want: Unavailable, detail: []string{"(advisor-1 failed, advisor-2 failed)"}, answers: []PeerAnswer{
			{Advisor: "evil\x1b[2J\u202e", Status: PeerFailed, Failure: &record.Failure{Kind: "x\r\a"}},
			{Advisor: "advisor-2", Status: "\x1b"},
		}},
		{name: "no advisor at the peer is unavailable", want: Unavailable, answers: []PeerAnswer{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(peerHandler(func(context.Context, Request) []PeerAnswer { return tc.answers }))
			t.Cleanup(srv.Close)
			a, _ := For("peer")
			ans, f := ask(t, a, Target{ID: "fake-peer", Adapter: "peer", BaseURL: srv.URL})
			if tc.want != "" {
				if f == nil || f.Kind != tc.want {
					t.Fatalf("failure = %v, want %s", f, tc.want)
				}
				for _, d := range tc.detail {
					if !strings.Contains(f.Detail, d) {
						t.Errorf("detail %q lacks %q", f.Detail, d)
					}
				}
				return
			}
			if f != nil {
				t.Fatal(f)
			}
			got, err := Normalise(ans.Output)
			if err != nil || !reflect.DeepEqual(got, c) || ans.Model != tc.wantModel || ans.ModelDeclared != tc.declared {
				t.Errorf("answer %+v (model %q), %v; want %+v (model %q)", got, ans.Model, err, c, tc.wantModel)
			}
		})
	}
}

// TestPeerServesItsOwnAdvisors: a serve-like peer whose consult asks its own
// advisor (a chat-completions fake) through the registry, normalises, and
// reports attribution; the asking side gets the conclusion and the model.
func TestPeerServesItsOwnAdvisors(t *testing.T) {
	t.Setenv(credVar, canary)
	own := chatFake()
	ownTarget, _ := own.start(t, behaviour{act: answer, text: "Here: " + mustJSON(testConclusion, false), model: "fake-model-7"})
	var seen Request
	srv := httptest.NewServer(peerHandler(func(ctx context.Context, req Request) []PeerAnswer {
		seen = req
		c, ans, err := consult(ctx, own.adapter(), ownTarget, req)
		if err != nil {
			t.Errorf("the peer's own advisor: %v", err)
			return []PeerAnswer{{Advisor: ownTarget.ID, Status: PeerFailed}}
		}
		return []PeerAnswer{{Advisor: ownTarget.ID, Status: PeerCompleted, Conclusion: &c, Model: peerModel(ans.Model)}}
	}))
	t.Cleanup(srv.Close)
	a, _ := For("peer")
	c, ans, err := consult(context.Background(), a, Target{ID: "fake-peer", Adapter: "peer", BaseURL: srv.URL + "/"}, testRequest)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, testRequest) {
		t.Errorf("peer was asked %+v, want %+v", seen, testRequest)
	}
	if !reflect.DeepEqual(c, testConclusion) || ans.Model != "fake-model-7" {
		t.Errorf("got %+v from %q", c, ans.Model)
	}
}
