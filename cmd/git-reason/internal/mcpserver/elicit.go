package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/cmd/git-reason/internal/ops"
	"git-reason/record"
)

// conclude is the conclude tool. A conclusion that answers a local-review
// checklist records who answered it. When the decision is material or
// critical and the host declared elicitation (and did not state
// approval_or_elicitation false), the first call answers with one
// elicitation per checklist item (MCP's multi round-trip input requests:
// the SDK asks clients of older protocol versions itself), and the call
// the host makes again with the person's answers records them as a
// person's. Otherwise the answers are the client's own, recorded as
// self-answered by an agent. The server's lock is not held while a
// person is asked.
func (s *Server) conclude(ws writeSpec) func(ctx context.Context, c *call) (*outcome, error) {
	return func(ctx context.Context, c *call) (*outcome, error) {
		s.mu.Lock()
		task, body, err := s.body(ctx, c, ws)
		var cl checklist
		if err == nil {
			cl, err = s.checklist(ctx, task, body)
		}
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		who := ""
		if len(cl.items) > 0 {
			who = record.AnsweredAgent
			if cl.weighty && s.elicits(c.session) {
				p := c.req.Params
				if p == nil || (p.InputResponses == nil && p.RequestState == "") {
					return s.askPerson(task, cl, body), nil
				}
				answers, err := s.answers(cl, p.InputResponses, p.RequestState)
				if err != nil {
					return nil, err
				}
				body["local_review"] = answers
				who = record.AnsweredPerson
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.store(ctx, task, ws.kind, body, who)
	}
}

// checklist is what a conclusion answers: the local-review items of its
// assessment's latest plan (when it selected no advisor).
type checklist struct {
	task, assessment, plan string
	items                  []string
	weighty                bool // the assessment is material or critical
}

func (s *Server) checklist(ctx context.Context, task string, body map[string]any) (checklist, error) {
	cl := checklist{task: task}
	id, _ := body["assessment"].(string)
	st, err := s.env.StateBefore(ctx, task)
	if err != nil {
		return cl, err
	}
	a, err := st.Resolve(id)
	if err != nil || a.Kind != record.KindAssessment {
		return cl, nil // the writer refuses it, saying why
	}
	p := st.LatestPlan(a.ID)
	if p == nil {
		return cl, nil
	}
	if len(p.Derived.(*record.PlanDerived).Selected) > 0 {
		// A plan that asked advisors has no checklist: the writer answers
		// only a plan without advisors for its local review, so an answer
		// here would be stored as one to an item of no checklist. The
		// command line's --local-review refuses it as well.
		if given, _ := body["local_review"].([]any); len(given) > 0 {
			item := ""
			if m, ok := given[0].(map[string]any); ok {
				item, _ = m["item"].(string)
			}
			return cl, ops.Usage("local_review: %q is not an item of the plan's checklist: plan %s asked advisors, so it has none; weigh their answers in weighed (see status)", item, record.ShortID(p.ID))
		}
		return cl, nil
	}
	m := a.Body.(*record.Assessment).Materiality
	cl.assessment, cl.plan = a.ID, p.ID
	cl.items = p.Derived.(*record.PlanDerived).LocalReview
	cl.weighty = m == "material" || m == "critical"
	return cl, nil
}

// elicits reports whether a person can be asked in this session: the
// negotiated approval_or_elicitation, and elicitation declared in
// initialize (without it the host cannot be asked).
func (s *Server) elicits(ss *mcp.ServerSession) bool {
	caps := clientCapabilities(ss)
	return caps != nil && caps.Elicitation != nil && s.sessions.of(ss).ApprovalOrElicitation
}

// askPerson is the answer that asks each checklist item of a person, with
// the client's proposed answer, if any, as the default, and a request
// state that binds the answers to this checklist.
func (s *Server) askPerson(task string, cl checklist, body map[string]any) *outcome {
	proposed := map[string]string{}
	if given, ok := body["local_review"].([]any); ok {
		for _, g := range given {
			if m, ok := g.(map[string]any); ok {
				item, _ := m["item"].(string)
				answer, _ := m["answer"].(string)
				proposed[item] = answer
			}
		}
	}
	decision, _ := body["decision"].(string)
	reqs := mcp.InputRequestMap{}
	for i, item := range cl.items {
		answer := map[string]any{"type": "string", "title": "Answer", "description": item, "minLength": 1, "maxLength": 4000}
		if p := strings.TrimSpace(proposed[item]); p != "" {
			answer["default"] = p
		}
		reqs[itemKey(i)] = &mcp.ElicitParams{
			Mode: "form",
			Message: record.Printable(fmt.Sprintf("git reason: local review of task %s before concluding %q. Item %d of %d: %s",
				task, decision, i+1, len(cl.items), item)),
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": answer}, "required": []any{"answer"}},
		}
	}
	return &outcome{input: reqs, state: s.states.issue(cl)}
}

// answers checks that the responses answer what this server asked (the
// state it issued for this very checklist, once) and returns them as the
// conclusion's local review. A person who declined or cancelled any item
// refuses the conclusion: nothing is recorded.
func (s *Server) answers(cl checklist, got mcp.InputResponseMap, state string) ([]any, error) {
	if !s.states.redeem(cl, state) {
		return nil, ops.Refused("the local review's answers do not answer an elicitation this server made for this checklist: call conclude again without them to ask a person")
	}
	out := make([]any, 0, len(cl.items))
	for i, item := range cl.items {
		res, _ := got[itemKey(i)].(*mcp.ElicitResult)
		action, text := "no answer", ""
		if res != nil {
			action = res.Action
			text, _ = res.Content["answer"].(string)
		}
		if action != "accept" || strings.TrimSpace(text) == "" {
			return nil, ops.Refused("the person asked did not answer item %d of the local review (%s): nothing recorded; call conclude again to ask again", i+1, action)
		}
		out = append(out, map[string]any{"item": item, "answer": text})
	}
	return out, nil
}

func itemKey(i int) string { return fmt.Sprintf("local-review-%d", i+1) }

// elicitStates issues and redeems the request states of local-review
// elicitations: a nonce and an HMAC, under a key made when the server
// started, of the nonce and the checklist asked. A state is redeemed once,
// so that answers are recorded as a person's only in reply to an
// elicitation this server made.
type elicitStates struct {
	once sync.Once
	key  []byte
	mu   sync.Mutex
	used map[string]bool
}

func (e *elicitStates) mac(nonce string, cl checklist) string {
	e.once.Do(func() {
		e.key = make([]byte, 32)
		_, _ = rand.Read(e.key)
		e.used = map[string]bool{}
	})
	m := hmac.New(sha256.New, e.key)
	fmt.Fprintf(m, "%s\x00%s\x00%s\x00%s\x00%s", nonce, cl.task, cl.assessment, cl.plan, strings.Join(cl.items, "\x00"))
	return hex.EncodeToString(m.Sum(nil))
}

func (e *elicitStates) issue(cl checklist) string {
	n := make([]byte, 16)
	_, _ = rand.Read(n)
	nonce := hex.EncodeToString(n)
	return nonce + "." + e.mac(nonce, cl)
}

func (e *elicitStates) redeem(cl checklist, state string) bool {
	nonce, sum, ok := strings.Cut(state, ".")
	if !ok || !hmac.Equal([]byte(sum), []byte(e.mac(nonce, cl))) {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.used[nonce] {
		return false
	}
	e.used[nonce] = true
	return true
}
