package record

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Kind names the type of a record.
type Kind string

// The record kinds of a task's reasoning, in the order a task usually
// meets them; the kinds of its life after it are in life.go.
const (
	KindAssessment   Kind = "assessment"
	KindPlan         Kind = "plan"
	KindConsultation Kind = "consultation"
	KindDisagreement Kind = "disagreement"
	KindResolution   Kind = "resolution"
	KindConclusion   Kind = "conclusion"
	KindValidation   Kind = "validation"
	KindAttempt      Kind = "attempt"
)

// Kinds lists every kind in its usual order.
var Kinds = []Kind{KindAssessment, KindPlan, KindConsultation, KindDisagreement,
	KindResolution, KindConclusion, KindValidation, KindAttempt,
	KindClosure, KindReopening, KindWithdrawal}

// ParseKind returns the kind named s, or an error listing the valid kinds.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", badInput(fmt.Sprintf("unknown record kind %q (one of %s)", s, strings.Join(names, ", ")))
}

// Record is one stored fact about a task. Body and Derived hold the
// canonical JSON of the kind's typed body and derived fields.
type Record struct {
	ID      string          `json:"id"`
	Kind    Kind            `json:"kind"`
	Task    string          `json:"task"`
	Created string          `json:"created"`
	Actor   string          `json:"actor"`
	Origin  string          `json:"origin"`
	Clock   int64           `json:"clock"`
	Body    json.RawMessage `json:"body"`
	Derived json.RawMessage `json:"derived"`
}

// Less orders records by (clock, id), the order of a task's history
// (Compare's order).
func Less(a, b *Record) bool { return Compare(a, b) < 0 }

// Compare orders records totally: by clock, then id, the order of a
// task's history; records that share both (which no task that reads
// holds: its tree has one entry per name) by their other fields, so that
// no two orderings of one set of records ever derive differently.
func Compare(a, b *Record) int {
	if c := cmp.Compare(a.Clock, b.Clock); c != 0 {
		return c
	}
	for _, f := range [...][2]string{{a.ID, b.ID}, {string(a.Kind), string(b.Kind)}, {a.Task, b.Task},
		{a.Created, b.Created}, {a.Actor, b.Actor}, {a.Origin, b.Origin}} {
		if c := strings.Compare(f[0], f[1]); c != 0 {
			return c
		}
	}
	if c := bytes.Compare(a.Body, b.Body); c != 0 {
		return c
	}
	return bytes.Compare(a.Derived, b.Derived)
}

// FileName is the record's path inside a task's tree, below records/.
func (r *Record) FileName() string {
	if r.Clock < 0 {
		return fmt.Sprintf("%010d-%s-%s.json", r.Clock, r.Kind, r.ID)
	}
	// Built by hand, one allocation: a status names every record of a
	// saved state (two thousand calls after one record of a 1,000-record
	// task), which fmt.Sprintf made several allocations each.
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], r.Clock, 10)
	var b strings.Builder
	b.Grow(max(len(d), 10) + len(r.Kind) + len(r.ID) + 7)
	for range 10 - len(d) {
		b.WriteByte('0')
	}
	b.Write(d)
	b.WriteByte('-')
	b.WriteString(string(r.Kind))
	b.WriteByte('-')
	b.WriteString(r.ID)
	b.WriteString(".json")
	return b.String()
}

// Blob is the record as a task's tree holds it, the content of its file
// (FileName): indented JSON and a newline, an actor's "Name <email>" left
// readable in git show rather than escaped.
func (r *Record) Blob() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaxTaskLen is the longest task name accepted.
const MaxTaskLen = 100

// TaskPattern is the shape of a task name, as the envelope schema states it
// (with maxLength 100 and no part ending in ".lock"): parts of letters,
// digits, '_', '-' and single dots, separated by single slashes, the first
// starting with a letter or digit, none starting with a dot and only the
// last unable to end in one. It is git's branch-name rules
// (git check-ref-format --branch) on that alphabet, so a branch name such
// as feature/db-migration is a task name.
const TaskPattern = `^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*(\.?/[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)*$`

// CheckTask reports whether name is a valid task name: 1-100 letters,
// digits, '.', '_', '-' and '/', starting with a letter or digit, under
// git's branch-name rules (no "..", no "//", no part starting with '.' or
// ending in ".lock"; not ending in '/' or '.'). Each rule has its own
// message; together they are TaskPattern. Stores check the ref name again
// by git's ref-name rules.
func CheckTask(name string) error {
	bad := func(why string) error { return Inputf("invalid task name %q: %s", name, why) }
	charset := len(name) > 0 && len(name) <= MaxTaskLen && isAlnum(name[0])
	for i := 0; charset && i < len(name); i++ {
		charset = isAlnum(name[i]) || strings.IndexByte("._-/", name[i]) >= 0
	}
	switch {
	case !charset:
		return bad("use 1-100 letters, digits, '.', '_', '-' or '/', starting with a letter or digit")
	case strings.Contains(name, ".."):
		return bad("it must not contain '..'")
	case strings.Contains(name, "//"), strings.HasSuffix(name, "/"):
		return bad("'/' must separate non-empty parts (no '//', no '/' at the end)")
	case strings.Contains(name, "/."):
		return bad("a part after '/' must not start with '.'")
	case strings.HasSuffix(name, ".lock"):
		return bad("it must not end in '.lock'")
	case strings.Contains(name, ".lock/"):
		return bad("a part before '/' must not end in '.lock'")
	case strings.HasSuffix(name, "."):
		return bad("it must not end in '.'")
	}
	// The rules above are TaskPattern whole (TestCheckTaskRulesArePattern):
	// the pattern is not run, a regular expression for each of 20,000
	// task refs listed.
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Evidence is one piece of evidence behind an assessment, resolution or
// validation.
type Evidence struct {
	Kind    string `json:"kind"`
	Ref     string `json:"ref,omitempty"`
	Summary string `json:"summary"`
}

// Assessment is the body of an assessment: what is uncertain and how much it
// matters.
type Assessment struct {
	Subject       string     `json:"subject"`
	Question      string     `json:"question"`
	Materiality   string     `json:"materiality"`
	Reversibility string     `json:"reversibility"`
	Needs         []string   `json:"needs,omitempty"`
	Evidence      []Evidence `json:"evidence,omitempty"`
	NewEvidence   bool       `json:"new_evidence,omitempty"`
}

// AssessmentDerived is what the writer computes for an assessment.
type AssessmentDerived struct {
	Provenance
	SubjectKey string `json:"subject_key"`
	Reuses     string `json:"reuses,omitempty"`
	ReusesTask string `json:"reuses_task,omitempty"`
	// Who concluded the reused conclusion, and how demanding its
	// assessment was: enough for verify to check the reuse again.
	ReusesActor         string `json:"reuses_actor,omitempty"`
	ReusesMateriality   string `json:"reuses_materiality,omitempty"`
	ReusesReversibility string `json:"reuses_reversibility,omitempty"`
	// Commit is the commit checked out when an assessment with file
	// evidence was recorded: the files a question shows are read there.
	Commit string `json:"commit,omitempty"`
}

// Plan is the body of a plan: only the assessment it is for.
type Plan struct {
	Assessment string `json:"assessment"`
}

// SnapshotEntry is one advisor's availability when a plan was made.
type SnapshotEntry struct {
	Advisor      string   `json:"advisor"`
	Status       string   `json:"status"`
	Reason       string   `json:"reason"`
	Until        string   `json:"until,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Local        bool     `json:"local,omitempty"`
}

// PlanDerived is the plan itself, computed by the writer from policy and the
// availability snapshot of the moment.
type PlanDerived struct {
	Provenance
	Profile     string          `json:"profile"`
	Mode        string          `json:"mode"`
	Review      string          `json:"review"`
	Reason      string          `json:"reason"`
	Wanted      int             `json:"wanted"`
	Needs       []string        `json:"needs,omitempty"`
	Selected    []string        `json:"selected"`
	Snapshot    []SnapshotEntry `json:"snapshot"`
	LocalReview []string        `json:"local_review,omitempty"`
}

// Failure is the typed failure of a consultation.
type Failure struct {
	Kind        string `json:"kind"`
	Detail      string `json:"detail,omitempty"`
	RetryAfterS int    `json:"retry_after_s,omitempty"`
}

// Answer is an advisor's normalised conclusion.
type Answer struct {
	Stance          string   `json:"stance"`
	Summary         string   `json:"summary"`
	Recommendations []string `json:"recommendations,omitempty"`
	Risks           []string `json:"risks,omitempty"`
	Confidence      float64  `json:"confidence"`
}

// Consultation is one advisor's outcome for one plan. Only the consult
// driver writes it.
type Consultation struct {
	Plan       string   `json:"plan"`
	Advisor    string   `json:"advisor"`
	Status     string   `json:"status"`
	Failure    *Failure `json:"failure,omitempty"`
	Conclusion *Answer  `json:"conclusion,omitempty"`
	Transport  string   `json:"transport"`
	DurationMS int64    `json:"duration_ms"`
}

// Model names the model that answered a consultation and how that is known.
type Model struct {
	Name   string `json:"name"`
	Source string `json:"source"` // reported or declared
}

// ConsultationDerived holds the attribution the driver records.
type ConsultationDerived struct {
	Provenance
	Model *Model `json:"model,omitempty"`
	// Endpoint is what the driver contacted: scheme://host:port of the
	// advisor's base URL (never a path, query or credential), or the
	// executable it ran.
	Endpoint string `json:"endpoint,omitempty"`
	// Question is what was sent: its digest and size and what material
	// it carried, never the material itself.
	Question *Question `json:"question,omitempty"`
}

// Question describes the exact question a consultation sent, so that a
// reader can assemble it again from the repository and check SHA256.
type Question struct {
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	// Budget is the advisor's context budget in bytes the question was
	// fitted to; Nonce the random value of its material markers.
	Budget int    `json:"budget"`
	Nonce  string `json:"nonce"`
	// Material lists each evidence item's contribution, in evidence order.
	Material []Material `json:"material"`
	// Redactions counts the secrets replaced by a marker in what was sent.
	Redactions int `json:"redactions"`
}

// Material is one evidence item's part of a question: where its content
// came from and how much of it was sent.
type Material struct {
	Evidence int    `json:"evidence"` // position in the assessment's evidence, from 1
	Kind     string `json:"kind"`     // file, commit, range or command
	Ref      string `json:"ref"`      // path, revision, range or record id
	Lines    string `json:"lines,omitempty"`
	// Revision is the commit the content was read at, "worktree" for a
	// file read from the work tree (it differed from the commit).
	Revision   string `json:"revision,omitempty"`
	Bytes      int    `json:"bytes"` // content bytes sent
	Of         int    `json:"of"`    // content bytes there were
	Truncated  bool   `json:"truncated,omitempty"`
	Omitted    string `json:"omitted,omitempty"` // why none was sent
	Redactions int    `json:"redactions,omitempty"`
}

// Disagreement is the body of a disagreement between cited records.
type Disagreement struct {
	Assessment string   `json:"assessment"`
	Cites      []string `json:"cites"`
	Summary    string   `json:"summary"`
}

// DisagreementDerived says who opened a disagreement.
type DisagreementDerived struct {
	Provenance
	OpenedBy string `json:"opened_by"`
}

// Resolution settles one open disagreement.
type Resolution struct {
	Disagreement string     `json:"disagreement"`
	Decision     string     `json:"decision"`
	Evidence     []Evidence `json:"evidence"`
}

// Weighed is how a conclusion treated one consultation.
type Weighed struct {
	Consultation string `json:"consultation"`
	Treatment    string `json:"treatment"`
	Reason       string `json:"reason"`
}

// LocalAnswer answers one item of a plan's local-review checklist.
type LocalAnswer struct {
	Item   string `json:"item"`
	Answer string `json:"answer"`
}

// Conclusion is the decision taken on an assessment.
type Conclusion struct {
	Assessment  string        `json:"assessment"`
	Decision    string        `json:"decision"`
	Rationale   string        `json:"rationale,omitempty"`
	Weighed     []Weighed     `json:"weighed,omitempty"`
	LocalReview []LocalAnswer `json:"local_review,omitempty"`
	// Supersedes names the conclusions of the assessment this one
	// replaces: all that stand, so that one conclusion stands after it.
	Supersedes []string `json:"supersedes,omitempty"`
}

// ConclusionDerived is the review count and advisors the writer computed.
type ConclusionDerived struct {
	Provenance
	ReviewCount int      `json:"review_count"`
	Advisors    []string `json:"advisors"`
	// AnsweredBy says who answered the local-review checklist, when the
	// writer knows: AnsweredPerson (asked through MCP elicitation) or
	// AnsweredAgent (an MCP client answered it itself).
	AnsweredBy string `json:"answered_by,omitempty"`
}

// Validation records how a conclusion was checked.
type Validation struct {
	Conclusion string     `json:"conclusion"`
	Method     string     `json:"method"`
	Command    string     `json:"command,omitempty"`
	Result     string     `json:"result,omitempty"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// ValidationDerived is what the tool observed running a validation command,
// or the manual claim's result.
type ValidationDerived struct {
	Provenance
	ExitCode     *int   `json:"exit_code,omitempty"`
	DurationMS   *int64 `json:"duration_ms,omitempty"`
	OutputSHA256 string `json:"output_sha256,omitempty"`
	// Where a command ran: the commit checked out (absent on an unborn
	// branch), whether the worktree differed from it, and the directory
	// relative to the worktree's root ("." at the root).
	Commit string `json:"commit,omitempty"`
	Dirty  *bool  `json:"dirty,omitempty"`
	Dir    string `json:"dir,omitempty"`
	Result string `json:"result"`
}

// Attempt records an implementation attempt of a conclusion.
type Attempt struct {
	Conclusion string   `json:"conclusion"`
	Commits    []string `json:"commits,omitempty"`
	Outcome    string   `json:"outcome"`
	Notes      string   `json:"notes,omitempty"`
}

// Empty is the derived part of kinds with nothing derived but their
// provenance.
type Empty struct{ Provenance }

// Provenance is what every record's derived part says about how it was
// written: the surface, which the writer knows from how it was called
// (never from a caller's input). Replay checks only its type: it is the
// writer's word, which a signature makes someone's.
type Provenance struct {
	Surface string `json:"surface,omitempty"`
}

// provenance gives the writer and replay the provenance of any derived
// value that embeds it.
func (p *Provenance) provenance() *Provenance { return p }

// provenanced is a derived value with a provenance.
type provenanced interface{ provenance() *Provenance }

// The surfaces a record can be written from (Provenance.Surface).
const (
	SurfaceCLI   = "cli"   // the command line
	SurfaceMCP   = "mcp"   // the MCP server
	SurfaceServe = "serve" // a review server
	SurfaceSync  = "sync"  // pull or sync, settling a merge
)

// Who answered a local-review checklist (ConclusionDerived.AnsweredBy).
const (
	AnsweredPerson = "person" // a person, asked through MCP elicitation
	AnsweredAgent  = "agent"  // the MCP client itself: self-answered
)

// SurfaceOf returns the surface that wrote e ("" for a record written
// before surfaces were recorded).
func SurfaceOf(e *Entry) string {
	if p, ok := e.Derived.(provenanced); ok {
		return p.provenance().Surface
	}
	return ""
}

// newBody returns a pointer to the zero typed body of kind k.
func newBody(k Kind) any {
	switch k {
	case KindAssessment:
		return &Assessment{}
	case KindPlan:
		return &Plan{}
	case KindConsultation:
		return &Consultation{}
	case KindDisagreement:
		return &Disagreement{}
	case KindResolution:
		return &Resolution{}
	case KindConclusion:
		return &Conclusion{}
	case KindValidation:
		return &Validation{}
	case KindAttempt:
		return &Attempt{}
	case KindClosure:
		return &Closure{}
	case KindReopening:
		return &Reopening{}
	case KindWithdrawal:
		return &Withdrawal{}
	}
	return nil
}

// newDerived returns a pointer to the zero derived value of kind k.
func newDerived(k Kind) any {
	switch k {
	case KindAssessment:
		return &AssessmentDerived{}
	case KindPlan:
		return &PlanDerived{}
	case KindConsultation:
		return &ConsultationDerived{}
	case KindDisagreement:
		return &DisagreementDerived{}
	case KindConclusion:
		return &ConclusionDerived{}
	case KindValidation:
		return &ValidationDerived{}
	case KindClosure:
		return &ClosureDerived{}
	case KindWithdrawal:
		return &WithdrawalDerived{}
	}
	return &Empty{}
}

// idFields names, per kind, the body fields that hold record ids; commands
// accept a unique prefix there and the writer stores the full id.
var idFields = map[Kind][]string{
	KindPlan:         {"assessment"},
	KindConsultation: {"plan"},
	KindDisagreement: {"assessment", "cites"},
	KindResolution:   {"disagreement"},
	KindConclusion:   {"assessment", "weighed.consultation", "supersedes"},
	KindValidation:   {"conclusion"},
	KindAttempt:      {"conclusion"},
	KindReopening:    {"closure"},
	KindWithdrawal:   {"record"},
}
