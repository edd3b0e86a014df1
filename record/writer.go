package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"git-reason/policy"
)

// Availability is the writer's source of advisor availability for plans.
type Availability interface {
	// Snapshot returns the profile in force and every declared advisor's
	// availability at this moment, in preference order.
	Snapshot(ctx context.Context) (policy.Profile, []policy.Advisor, error)
}

// Vocabulary is implemented by an Availability that knows the declared
// capabilities; the writer then refuses an assessment needing another.
type Vocabulary interface {
	// KnownCapability reports whether the capability is declared.
	KnownCapability(ctx context.Context, capability string) (bool, error)
}

// NoAdvisors is the availability when no advisor is declared: every plan is
// the structured local review.
type NoAdvisors struct{ Profile policy.Profile }

// Snapshot implements Availability with an empty snapshot.
func (n NoAdvisors) Snapshot(context.Context) (policy.Profile, []policy.Advisor, error) {
	p := n.Profile
	if p.Name == "" {
		p = policy.Profile{Name: "default", Mode: policy.ModeNormal}
	}
	return p, nil, nil
}

// Writer is the single writer: every record is appended through it, and it
// admits or refuses each by the rules. Its fields are set once; a Writer is
// safe for concurrent use.
type Writer struct {
	Store Store
	Index Index // standing conclusions of other tasks; nil scans Store
	// Vouch, when set, must vouch for a task before a standing conclusion
	// of it is reused (stores whose histories can arrive from elsewhere set
	// it); nil reuses from any task.
	Vouch Voucher
	// Authors, when set, must trust who wrote a standing conclusion and
	// the reviews it weighed before it is reused; NotReused, when set, is
	// told in one line why a conclusion that would have been reused was
	// not.
	Authors   Authorship
	NotReused func(line string)
	Avail     Availability // nil means NoAdvisors
	// Checkout, when set, names the commit checked out in the work tree
	// ("" on an unborn branch). An assessment with file evidence records
	// it, so that its files are read at that commit for a question.
	Checkout func(context.Context) string
	Actor    string // "Name <email>"
	Origin   string // this clone's id
	// NewOrigin, when set and Origin is empty, gives this clone's id once
	// a record has been admitted, and Origin keeps it: a clone's first
	// write records its origin (in git config) only for a record it
	// stores, never for a body it refuses.
	NewOrigin func() (string, error)
	Now       func() time.Time
	// Surface is the surface this writer serves (SurfaceCLI, ...),
	// recorded in every record's derived part; "" records none.
	Surface string
	// MaxAttempts bounds compare-and-swap retries when the head keeps moving.
	MaxAttempts int
	// Keep, for a writer that outlives one command (the MCP server),
	// keeps each task's state as its last append left it, keyed by the
	// head that append stored (see Kept): the next append on that head
	// goes on from it, the entries read so far staying decoded, instead
	// of deriving the task again. A head that moved (another process
	// appended) is derived anew.
	Keep bool
	kept keptStates
}

// keptStates are a Keep writer's states by task.
type keptStates struct {
	mu sync.Mutex
	m  map[string]keptState
}

type keptState struct {
	head string
	st   *State
}

// Result is an admitted, stored record.
type Result struct {
	*Entry
	// Commit is the task's head once the record was stored: the commit its
	// append made or, when the store failed after writing it, the head at
	// which the writer found it.
	Commit string `json:"commit"`
	// Parent is the head the record was appended to ("" for a task's
	// first record), and State the task's state at Commit as admission
	// derived it: the state at Parent with the record added, each of its
	// entries decoded when first read. Both are unset when the append
	// found its record already stored after a failure.
	Parent string `json:"-"`
	State  *State `json:"-"`
}

// hints carry what only a privileged path (the consult driver, a validation
// run by the tool) knows; a caller's body can never supply them.
type hints struct {
	driver   bool // the consult driver is writing
	model    *Model
	endpoint string
	question *Question // what a consultation sent
	openedBy string
	observed *ValidationDerived
	checkout *string // the commit an assessment's files are read at
	// answeredBy is who answered a conclusion's local-review checklist,
	// as the surface that asked knows it.
	answeredBy string
}

// Append admits a caller's body (JSON) as a record of kind on task. Kinds a
// caller may not write (consultation; a command validation) are refused.
func (w *Writer) Append(ctx context.Context, task string, kind Kind, body []byte) (*Result, error) {
	return w.append(ctx, task, kind, body, hints{openedBy: "caller"})
}

// AppendAnswered is Append for a conclusion whose local-review answers
// the calling surface knows were given by who (AnsweredPerson or
// AnsweredAgent); the writer records it when the conclusion answers a
// checklist.
func (w *Writer) AppendAnswered(ctx context.Context, task string, kind Kind, body []byte, who string) (*Result, error) {
	if who != AnsweredPerson && who != AnsweredAgent {
		return nil, fmt.Errorf("answered by %q: want %q or %q", who, AnsweredPerson, AnsweredAgent)
	}
	return w.append(ctx, task, kind, body, hints{openedBy: "caller", answeredBy: who})
}

// AppendConsultation records one consultation outcome. Only the consult
// driver calls it: it is where model attribution is written, in one place.
func (w *Writer) AppendConsultation(ctx context.Context, task string, c *Consultation, m *Model) (*Result, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return w.append(ctx, task, KindConsultation, raw, hints{driver: true, model: m})
}

// AppendConsultationFrom is AppendConsultation with the endpoint the
// driver contacted, recorded beside the model.
func (w *Writer) AppendConsultationFrom(ctx context.Context, task string, c *Consultation, m *Model, endpoint string) (*Result, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return w.append(ctx, task, KindConsultation, raw, hints{driver: true, model: m, endpoint: endpoint})
}

// AppendConsultationSent is AppendConsultationFrom with what the driver
// sent: the question's digest, size and material, recorded beside the
// model and endpoint.
func (w *Writer) AppendConsultationSent(ctx context.Context, task string, c *Consultation, m *Model, endpoint string, q *Question) (*Result, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return w.append(ctx, task, KindConsultation, raw, hints{driver: true, model: m, endpoint: endpoint, question: q})
}

// AppendDriverDisagreement records a disagreement the consult driver opened
// because two completed consultations took conflicting stances.
func (w *Writer) AppendDriverDisagreement(ctx context.Context, task string, d *Disagreement) (*Result, error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return w.append(ctx, task, KindDisagreement, raw, hints{driver: true, openedBy: "driver"})
}

// State loads and derives task as the writer sees it now: what the next
// append would be admitted against.
func (w *Writer) State(ctx context.Context, task string) (*State, error) {
	if err := CheckTask(task); err != nil {
		return nil, err
	}
	_, recs, err := w.Store.Load(ctx, task)
	if err != nil {
		return nil, fmt.Errorf("load task %s: %w", task, err)
	}
	return Derive(task, recs)
}

// AppendRunValidation records a command validation (its body as JSON)
// that the tool runs itself. The body is admitted first, so nothing runs
// for a body that would be refused; then run is called with the admitted
// body (ids resolved) to run its command, and what run observed (exit
// status, duration, output digest) is recorded with it. An error from run
// records nothing.
func (w *Writer) AppendRunValidation(ctx context.Context, task string, raw []byte, run func(*Validation) (ValidationDerived, error)) (*Result, error) {
	m, err := w.parse(task, KindValidation, raw)
	if err != nil {
		return nil, err
	}
	if m["method"] != "command" {
		return nil, badInput("method: only a command validation is run; record a manual one with --manual")
	}
	head, _, st, err := w.current(ctx, task)
	if err != nil {
		return nil, err
	}
	if err := w.verifiedAt(ctx, task, head); err != nil {
		return nil, err // before the command runs
	}
	zero, none := 0, int64(0)
	placeholder := &ValidationDerived{ExitCode: &zero, DurationMS: &none, OutputSHA256: strings.Repeat("0", 64)}
	_, entry, err := w.admit(ctx, st, KindValidation, m, hints{observed: placeholder})
	if err != nil {
		return nil, err
	}
	obs, err := run(entry.Body.(*Validation))
	if err != nil {
		return nil, err
	}
	return w.appendParsed(ctx, task, KindValidation, m, hints{observed: &obs})
}

// append parses a body and appends it.
func (w *Writer) append(ctx context.Context, task string, kind Kind, raw []byte, h hints) (*Result, error) {
	m, err := w.parse(task, kind, raw)
	if err != nil {
		return nil, err
	}
	return w.appendParsed(ctx, task, kind, m, h)
}

// parse checks what needs no state (the task's name, the kind, the
// writer's identity) and parses the body: the only time a write decodes
// the body's JSON.
func (w *Writer) parse(task string, kind Kind, raw []byte) (map[string]any, error) {
	if err := CheckTask(task); err != nil {
		return nil, err
	}
	if newBody(kind) == nil {
		return nil, badInput(fmt.Sprintf("unknown record kind %q", kind))
	}
	m, err := decodeBody(kind, raw)
	if err != nil {
		return nil, err
	}
	if w.Actor == "" || (w.Origin == "" && w.NewOrigin == nil) {
		return nil, errors.New("writer has no actor or origin: set git config user.name and user.email")
	}
	return m, nil
}

// appendParsed admits the parsed body against the task's state and stores
// it, re-deriving and re-admitting whenever the head moved.
func (w *Writer) appendParsed(ctx context.Context, task string, kind Kind, m map[string]any, h hints) (*Result, error) {
	attempts := w.MaxAttempts
	if attempts <= 0 {
		attempts = 1000
	}
	for i := 0; i < attempts; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		head, recs, st, err := w.current(ctx, task)
		if err != nil {
			return nil, err
		}
		if err := w.verifiedAt(ctx, task, head); err != nil {
			return nil, err
		}
		rec, entry, err := w.admit(ctx, st, kind, m, h)
		if derr := st.decodeError(); derr != nil {
			// A record the store vouched for does not decode: refuse as
			// Derive refuses, with its error.
			if recs == nil {
				_, recs, _ = w.Store.Load(ctx, task)
			}
			if _, err := Derive(task, recs); err != nil {
				derr = err
			}
			return nil, fmt.Errorf("derive task %s: %w", task, derr)
		}
		if err != nil {
			return nil, err
		}
		commit, err := w.Store.Append(ctx, task, head, rec)
		if errors.Is(err, ErrConflict) {
			// Someone else appended: re-derive and re-run admission.
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			continue
		}
		if errors.Is(err, ErrInput) {
			return nil, err // the store refused the task before writing anything
		}
		if err != nil {
			// A store can fail after the record was written (the ref moved,
			// then something after it failed). Reporting that as a failure
			// would have the caller append it again: look first.
			if at, ok := w.stored(ctx, task, rec.ID); ok {
				return &Result{Entry: entry, Commit: at}, nil
			}
			return nil, fmt.Errorf("store %s record in task %s: %w", kind, task, err)
		}
		st.add(entry) // the record sorts last: its clock is the highest
		w.keep(task, commit, st)
		return &Result{Entry: entry, Commit: commit, Parent: head, State: st}, nil
	}
	return nil, fmt.Errorf("task %s kept moving: gave up after %d attempts; try again", task, attempts)
}

// BaseChecker says whether a task's head may be appended to: its history
// replays clean through the admission rules (a store that can replay:
// gitstore's). A writer whose Store is one appends only on such a head.
type BaseChecker interface {
	// CheckBase returns replay's first finding of task at head, nil when
	// it replays clean (or its only findings wait for a person's record
	// after a merge of two honest histories), or when head is one this
	// clone's writer made (it appends only on a clean head).
	CheckBase(ctx context.Context, task, head string) (*Finding, error)
}

// verifiedAt refuses an append on top of a history that does not verify
// (one forged with plumbing, or fetched by plain git past sync's
// replay): admission would take the stored derived fields of records
// replay refuses as its base, and replay would then refuse the new record
// too. Nothing is written; verify says what is wrong.
func (w *Writer) verifiedAt(ctx context.Context, task, head string) error {
	v, ok := w.Store.(BaseChecker)
	if !ok || head == "" {
		return nil
	}
	f, err := v.CheckBase(ctx, task, head)
	if err != nil {
		return err
	}
	if f != nil {
		line, rest := NotVerified(f), ": nothing is written on top of a history that breaks the rules"
		return refuseAdvised("task "+task+" ", line.String()+rest, line.ToolMessage()+rest)
	}
	return nil
}

// current is task's head and the state an append on it is admitted
// against, with the records loaded for it. A Keep writer whose store
// tells heads (HeadStore) asks the head first: holding the state its last
// append left at that head, it reads no record (recs is nil) and goes on
// from a copy of it. Otherwise the task is loaded and stateAt derives it.
func (w *Writer) current(ctx context.Context, task string) (string, []*Record, *State, error) {
	if hs, ok := w.Store.(HeadStore); ok && w.Keep {
		head, err := hs.Head(task)
		if err != nil {
			return "", nil, nil, fmt.Errorf("load task %s: %w", task, err)
		}
		if st := w.Kept(task, head); st != nil {
			return head, nil, st.copy(), nil
		}
	}
	head, recs, err := w.Store.Load(ctx, task)
	if err != nil {
		return "", nil, nil, fmt.Errorf("load task %s: %w", task, err)
	}
	st, err := w.stateAt(task, head, recs)
	if err != nil {
		return "", nil, nil, fmt.Errorf("derive task %s: %w", task, err)
	}
	return head, recs, st, nil
}

// derive is the state an append is admitted against: Derive's, decoded
// as admission reads it when the store vouches that its records decode.
func (w *Writer) derive(task string, recs []*Record) (*State, error) {
	if ds, ok := w.Store.(DecodingStore); ok && ds.RecordsDecode() {
		return deriveLazy(task, recs), nil
	}
	return Derive(task, recs)
}

// stateAt is the state an append at head is admitted against: a copy of
// the state a Keep writer's last append left at that very head (its
// records are head's records: the head names them), else derive's.
func (w *Writer) stateAt(task, head string, recs []*Record) (*State, error) {
	if st := w.Kept(task, head); st != nil {
		return st.copy(), nil
	}
	return w.derive(task, recs)
}

// Kept is the state a Keep writer's last append on task left, when head
// is the head it stored, and nil otherwise. It is the state at head as
// admission derives it (each entry decoded when first read), before any
// replay: the caller decides whether head's history verifies. It must not
// be changed; entries it hands out stay decoded for the next append.
func (w *Writer) Kept(task, head string) *State {
	if !w.Keep || head == "" {
		return nil
	}
	w.kept.mu.Lock()
	defer w.kept.mu.Unlock()
	k, ok := w.kept.m[task]
	if !ok || k.head != head || k.st.undecodable != nil {
		return nil
	}
	return k.st
}

// KeptTasks bounds how many tasks' states a Keep writer keeps: a server
// that wrote to more tasks lets one go (any one) for each new one, so
// that what it holds does not grow with every task it ever wrote to.
const KeptTasks = 64

// keep remembers st as task's state at head, for a Keep writer.
func (w *Writer) keep(task, head string, st *State) {
	if !w.Keep {
		return
	}
	w.kept.mu.Lock()
	defer w.kept.mu.Unlock()
	if w.kept.m == nil {
		w.kept.m = map[string]keptState{}
	}
	if _, ok := w.kept.m[task]; !ok && len(w.kept.m) >= KeptTasks {
		for t := range w.kept.m {
			delete(w.kept.m, t)
			break
		}
	}
	w.kept.m[task] = keptState{head: head, st: st}
}

// stored reports whether the record id is on the task's history, and the
// head at which it is. It looks even when ctx has ended (the failure may
// be that), for a few seconds at most.
func (w *Writer) stored(ctx context.Context, task, id string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	head, recs, err := w.Store.Load(ctx, task)
	if err != nil {
		return "", false
	}
	for _, r := range recs {
		if r.ID == id {
			return head, true
		}
	}
	return "", false
}

// admit validates and admits one parsed body against the task's state and
// returns the complete record. It changes nothing but m, whose id prefixes
// it resolves to full ids (again harmlessly on a retry: a full id resolves
// to itself).
func (w *Writer) admit(ctx context.Context, st *State, kind Kind, m map[string]any, h hints) (*Record, *Entry, error) {
	if err := resolveIDs(kind, m, st); err != nil {
		return nil, nil, err
	}
	if err := confusions(kind, m); err != nil {
		return nil, nil, err
	}
	check := validateNew // a caller's body: written anew, held to its input rules too
	if h.driver {
		check = func(kind Kind, v any) error { return validate(kind, "body", v) }
	}
	if err := check(kind, m); err != nil {
		return nil, nil, err
	}
	body := newBody(kind)
	if err := assign(body, m); err != nil {
		return nil, nil, badInput(fmt.Sprintf("%s body: %v", kind, err))
	}
	if a, ok := body.(*Assessment); ok && h.checkout == nil && w.Checkout != nil && hasFileEvidence(a) {
		c := w.Checkout(ctx)
		h.checkout = &c
	}
	derived, err := w.rules(ctx, st, kind, body, h)
	if err != nil {
		return nil, nil, err
	}
	w.provenance(derived, body, h)
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	t := now().UTC()
	if w.Origin == "" {
		if w.Origin, err = w.NewOrigin(); err != nil {
			return nil, nil, err
		}
	}
	rec := &Record{
		ID:      ulid.MustNew(idTime(st, t), ulid.DefaultEntropy()).String(),
		Kind:    kind,
		Task:    st.Task,
		Created: t.Format(TimeLayout),
		Actor:   w.Actor,
		Origin:  w.Origin,
		Clock:   st.Clock + 1,
	}
	if rec.Body, err = json.Marshal(body); err != nil {
		return nil, nil, err
	}
	if rec.Derived, err = json.Marshal(derived); err != nil {
		return nil, nil, err
	}
	// The body was validated above; what the writer itself filled in is
	// checked here, so a bug in it can never be stored.
	if err := checkFilled(rec); err != nil {
		return nil, nil, fmt.Errorf("writer produced an invalid record (a bug): %w", err)
	}
	return rec, &Entry{Record: rec, Body: body, Derived: derived}, nil
}

// provenance fills what the writer records about how the record was
// written: the surface it serves and who answered a checklist.
func (w *Writer) provenance(derived, body any, h hints) {
	if p, ok := derived.(provenanced); ok {
		p.provenance().Surface = w.Surface
	}
	if d, ok := derived.(*ConclusionDerived); ok && len(body.(*Conclusion).LocalReview) > 0 {
		d.AnsweredBy = h.answeredBy
	}
}

// TimeLayout is how records spell their creation time: RFC 3339, UTC,
// milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// CheckRecord validates a stored record's envelope, body and derived fields
// against their schemas and returns every violation.
func CheckRecord(rec *Record) error { return checkParts(rec, "envelope", "body", "derived") }

// checkParts validates the named parts of a record: envelope, body,
// derived. The envelope is checked with the body and derived fields
// standing in as empty objects, each of which its own part checks, so no
// part is decoded twice.
func checkParts(rec *Record, names ...string) error {
	data := map[string][]byte{"body": rec.Body, "derived": rec.Derived}
	for _, name := range names {
		if name == "envelope" {
			env := *rec
			env.Body, env.Derived = json.RawMessage("{}"), json.RawMessage("{}")
			raw, err := json.Marshal(&env)
			if err != nil {
				return err
			}
			data[name] = raw
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data[name]))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return badInput(fmt.Sprintf("%s %s is not valid JSON: %v", rec.Kind, name, err))
		}
		if err := validate(rec.Kind, name, v); err != nil {
			return err
		}
	}
	return nil
}

// checkFilled validates what the writer filled in: the envelope and the
// derived fields (the body was validated already).
func checkFilled(rec *Record) error {
	return checkParts(rec, "envelope", "derived")
}

// idTime is the millisecond a new record's id holds: t's, or the one after
// the task's last record's when t is not past it. A record's short id
// (ShortID) is its id's millisecond, so a record made in the millisecond
// of the one before it would share its short id, which every command then
// refuses as ambiguous. Created keeps t.
func idTime(st *State, t time.Time) uint64 {
	ms := ulid.Timestamp(t)
	if n := len(st.Entries); n > 0 && st.Entries[n-1] != nil && st.Entries[n-1].Record != nil {
		if last, err := ulid.ParseStrict(st.Entries[n-1].ID); err == nil && ms <= last.Time() {
			ms = last.Time() + 1
		}
	}
	return ms
}
