package ops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"git-reason/advisor"
	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore/git"
	"git-reason/policy"
	"git-reason/record"
)

// Catalog loads the advisor declarations once: the embedded share/ files,
// the user's overlay and the repository's .reason/advisors.yaml. A
// resident session (the MCP server) loads them again when one of those
// files, or the trust store that decides what of the repository's
// counts, changed since, as it reads its settings again (Settings), and
// forgets the profile it chose from them (checked once in a request it
// holds: Hold).
func (e *Session) Catalog() (*advisor.Catalog, []advisor.Finding, error) {
	if e.resident {
		if _, err := e.Settings(); err != nil { // first: it may read them again, and drop the catalog
			return nil, nil, err
		}
	}
	if e.catalog != nil && (!e.resident || e.catalogSeen || !e.catalogFiles.Changed()) {
		e.catalogSeen = e.held
		return e.catalog, e.findings, nil
	}
	if e.catalog != nil {
		e.profile, e.chosenBy = nil, ""
	}
	e.baseCatalog = nil // read from the same files (rememberBaseline)
	src, err := e.sources()
	if err != nil {
		return nil, nil, err
	}
	var files settings.Watch
	covered := coveredPaths(e.Repo.WorkTree, e.catalog)
	if e.resident {
		// Before reading: a change made while it reads is seen next time.
		files = settings.WatchFiles(append([]string{src.User, src.Repository, e.trustStore(e.settings.ConfigDir).Path}, covered...)...)
	}
	cat, findings, err := advisor.Load(src)
	if err != nil {
		if bad := declarationError(err); bad != nil {
			return nil, nil, bad
		}
		return nil, nil, fmt.Errorf("load advisor declarations: %w", err)
	}
	if now := coveredPaths(e.Repo.WorkTree, cat); e.resident {
		// The files trusted commands name count as the overlay does.
		files = append(files, settings.WatchFiles(slices.DeleteFunc(now, func(p string) bool { return slices.Contains(covered, p) })...)...)
	}
	e.explainUntrusted(cat.Untrusted)
	e.catalog, e.findings, e.catalogFiles = cat, findings, files
	e.catalogSeen = e.held
	return cat, findings, nil
}

// declarationError says a declaration file's refusal (an
// *advisor.ParseError in err) as bad input, nil for any other error. A file
// that is not YAML at all also says how to check it once fixed.
func declarationError(err error) error {
	var pe *advisor.ParseError
	if !errors.As(err, &pe) {
		return nil
	}
	if !pe.Syntax {
		return Usage("%v", err)
	}
	return usageAdvised(fmt.Sprintf("%v; once it is fixed, 'git reason doctor' checks it", err),
		fmt.Sprintf("%v; once it is fixed, the doctor tool checks it", err))
}

// Profile returns the execution profile in force and what chose it (see
// settings.Settings.Profile: the --profile flag, GIT_REASON_PROFILE, git
// config reason.profile, CI=true, or the default).
func (e *Session) Profile() (advisor.Profile, string, error) {
	st, err := e.Settings() // first: a resident session may read again
	if err != nil {
		return advisor.Profile{}, "", err
	}
	if e.profile != nil {
		return *e.profile, e.chosenBy, nil
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return advisor.Profile{}, "", err
	}
	p, err := advisor.FindProfile(cat, st.Profile.Name, st.Profile.By)
	if err != nil {
		return advisor.Profile{}, "", Usage("%v", err)
	}
	e.profile, e.chosenBy = &p, st.Profile.By
	return p, st.Profile.By, nil
}

// Availability derives every declared advisor's status at now, from
// presence, the profile's mode, the disable list and the circuits of this
// clone's recorded outcomes. It contacts nothing.
func (e *Session) Availability(ctx context.Context, now time.Time) (advisor.Profile, []policy.Advisor, error) {
	cat, _, err := e.Catalog()
	if err != nil {
		return advisor.Profile{}, nil, err
	}
	prof, _, err := e.Profile()
	if err != nil {
		return advisor.Profile{}, nil, err
	}
	snap, err := e.snapshotOf(cat, prof.Mode, now)
	if err != nil {
		return advisor.Profile{}, nil, err
	}
	e.noticeUntrusted(cat)
	return prof, snap, nil
}

// catalogNow is the declarations' catalog and every declared advisor's
// availability now (Availability).
func (e *Session) catalogNow(ctx context.Context) (*advisor.Catalog, []policy.Advisor, error) {
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, nil, err
	}
	_, snap, err := e.Availability(ctx, time.Now())
	return cat, snap, err
}

// snapshotOf derives the availability of a catalog's advisors under a mode
// at now.
func (e *Session) snapshotOf(cat *advisor.Catalog, mode policy.Mode, now time.Time) ([]policy.Advisor, error) {
	st, outcomes, err := e.ownOutcomes()
	if err != nil {
		return nil, err
	}
	return advisor.Availability(cat.Advisors, advisor.Inputs{
		Env: advisor.SystemEnv(), Mode: mode, Disabled: st.Disabled,
		Origin: st.Origin, Outcomes: outcomes, Now: now,
	}), nil
}

// ownOutcomes is this clone's settings and the outcomes in its own
// journal. Only this clone's journal: records fetched from elsewhere,
// whatever origin they claim, never open or close a circuit here. A clone
// with no origin yet has written nothing, so no outcome is its own;
// reading availability (advisors, doctor, handover) never makes one: only
// a write records the origin (Identify). A session outside any repository
// has no journal.
func (e *Session) ownOutcomes() (*settings.Settings, []advisor.Outcome, error) {
	st, err := e.Settings()
	if err != nil {
		return nil, nil, err
	}
	if st.Origin == "" || !e.InRepository() {
		return st, nil, nil
	}
	outcomes, err := e.Journal().Read()
	if err != nil {
		return nil, nil, fmt.Errorf("read this clone's outcomes: %w", err)
	}
	return st, outcomes, nil
}

// availability is the writer's source of availability: the real one.
type availability struct{ sess *Session }

func (a availability) Snapshot(ctx context.Context) (policy.Profile, []policy.Advisor, error) {
	now := time.Now()
	prof, snap, err := a.sess.Availability(ctx, now)
	if err != nil {
		return policy.Profile{}, nil, err
	}
	if !policy.ValidMode(prof.Mode) {
		bad := fmt.Sprintf("profile %s declares unknown mode %q: use normal, offline or ci", prof.ID, prof.Mode)
		return policy.Profile{}, nil, usageAdvised(bad+" (see 'git reason doctor')", bad+" (see the doctor tool)")
	}
	if err := a.sess.rememberBaseline(prof, now); err != nil {
		return policy.Profile{}, nil, err
	}
	return prof.Policy(), snap, nil
}

// KnownCapability implements record.Vocabulary from the declarations.
func (a availability) KnownCapability(_ context.Context, capability string) (bool, error) {
	cat, _, err := a.sess.Catalog()
	if err != nil {
		return false, err
	}
	return cat.HasCapability(capability), nil
}

// Journal is this clone's journal of consultation outcomes, in the common
// git dir that every worktree shares and no fetch writes.
func (e *Session) Journal() *advisor.Journal {
	// In a shared repository the journal gets the group's permissions,
	// as git's own files do: the others of the group consult too.
	return &advisor.Journal{Path: advisor.JournalPath(e.Repo.CommonDir), Mkdir: git.MkdirAll, Made: git.AdjustCreated}
}

// AdvisorList is every declared advisor with its availability now, under
// the profile in force.
type AdvisorList struct {
	Profile  string       `json:"profile"`
	Mode     string       `json:"mode"`
	Advisors []AdvisorRow `json:"advisors"`
}

// SayToTools says each row's reason as the MCP tools say it
// (advisor.ToolReason): the doctor tool, where the command line names
// 'git reason doctor'.
func (l *AdvisorList) SayToTools() { reasonsToTools(l.Advisors) }

// SayToTools says each circuit's reason as the MCP tools say it, as
// AdvisorList.SayToTools does.
func (r *HandoverReport) SayToTools() { reasonsToTools(r.Circuits) }

func reasonsToTools(rows []AdvisorRow) {
	for i := range rows {
		rows[i].Reason = advisor.ToolReason(rows[i].Reason)
	}
}

// AdvisorRow is one declared advisor and its status.
type AdvisorRow struct {
	ID           string   `json:"id"`
	Transport    string   `json:"transport"`
	Adapter      string   `json:"adapter"`
	Status       string   `json:"status"`
	Reason       string   `json:"reason"`
	Until        string   `json:"until,omitempty"`
	Capabilities []string `json:"capabilities"`
	Local        bool     `json:"local"`
	// AnswersPeers says whether git reason serve may ask it a peer's
	// question (advisor.Declaration.MayAnswerPeers).
	AnswersPeers bool `json:"answers_peers"`
	// Workdir is where an exec advisor's command runs (advisor.Workdir*);
	// "" for the other adapters.
	Workdir string `json:"workdir,omitempty"`
	// Unreadable is set when the advisor's last two answers to this
	// clone did not read (advisor.UnreadableLately).
	Unreadable *UnreadableAnswers `json:"unreadable,omitempty"`
}

// UnreadableAnswers says that an advisor's last two answers did not read
// (malformed or empty), which opens no circuit, so that a plan made anew
// asks it again; Next plans the last task without it, as that task's
// next step offers.
type UnreadableAnswers struct {
	Task string `json:"task,omitempty"`
	Next string `json:"next"`
}

// unreadableAnswers is what a row says of advisor id's last two answers,
// nil when they read.
func unreadableAnswers(id, origin string, outcomes []advisor.Outcome, s *settings.Settings) *UnreadableAnswers {
	task, ok := advisor.UnreadableLately(id, origin, outcomes)
	if !ok {
		return nil
	}
	t := task
	if t == "" {
		t = "TASK"
	}
	return &UnreadableAnswers{Task: task, Next: record.PlanWithout(s.Disabled, s.DisabledFromEnv, []string{id}, t)}
}

// UnreadableLately lists those of ids whose last two answers to this
// clone did not read (advisor.UnreadableLately), in the order given.
func (e *Session) UnreadableLately(ids []string) []string {
	st, outcomes, err := e.ownOutcomes()
	if err != nil {
		return nil // said by the verb that needs them
	}
	var out []string
	for _, id := range ids {
		if _, ok := advisor.UnreadableLately(id, st.Origin, outcomes); ok {
			out = append(out, id)
		}
	}
	return out
}

// Said is the line advisors and doctor print of it, and as the MCP tools
// say it: no tool plans without an advisor, the person does.
func (u *UnreadableAnswers) Said(id string) record.Advice {
	why := "the last two answers of " + id + " did not read (malformed or empty), which opens no circuit, so a plan made anew asks it again: "
	return record.Advice{CLI: why + u.Next + " plans without it",
		Tools: why + "the person may plan without it ('" + u.Next + "'; no tool leaves an advisor out)"}
}

// Advisors lists every declared advisor, in preference order, with its
// availability now. It contacts nothing.
func (e *Session) Advisors(ctx context.Context) (*AdvisorList, error) {
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	prof, snap, err := e.Availability(ctx, time.Now())
	if err != nil {
		return nil, err
	}
	st, outcomes, err := e.ownOutcomes()
	if err != nil {
		return nil, err
	}
	set, err := e.Settings()
	if err != nil {
		return nil, err
	}
	out := &AdvisorList{Profile: prof.ID, Mode: string(prof.Mode), Advisors: make([]AdvisorRow, 0, len(snap))}
	for _, a := range snap {
		d, _ := cat.Advisor(a.ID)
		out.Advisors = append(out.Advisors, AdvisorRow{ID: a.ID, Transport: d.Transport, Adapter: d.Adapter,
			Status: string(a.Status), Reason: a.Reason, Until: a.Until, Capabilities: append([]string{}, a.Capabilities...), Local: a.Local,
			AnswersPeers: d.MayAnswerPeers(), Workdir: workdir(d), Unreadable: unreadableAnswers(a.ID, st.Origin, outcomes, set)})
	}
	return out, nil
}

// coveredPaths are the work-tree files cat's repository overlay's
// commands name, absolute.
func coveredPaths(top string, cat *advisor.Catalog) []string {
	if cat == nil {
		return nil
	}
	out := make([]string, 0, len(cat.RepositoryFiles))
	for _, f := range cat.RepositoryFiles {
		out = append(out, filepath.Join(top, filepath.FromSlash(f.Path)))
	}
	return out
}

// workdir is where d's command runs, for an exec advisor.
func workdir(d advisor.Declaration) string {
	switch {
	case d.Adapter != advisor.AdapterExec:
		return ""
	case d.RunsInEmptyDir():
		return advisor.WorkdirEmpty
	}
	return advisor.WorkdirRepository
}
