package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"git-reason/advisor"
	"git-reason/gitstore"
	"git-reason/hooks"
	"git-reason/policy/neutrality"
	"git-reason/record"
)

// Finding is one problem doctor reports; error findings make it exit 3.
type Finding struct {
	Severity string `json:"severity"` // error, warning or info
	Code     string `json:"code"`
	Subject  string `json:"subject,omitempty"`
	Message  string `json:"message"`
	Where    string `json:"where,omitempty"`
	// FixTools are the tool calls that take the fix (Fix), when a tool
	// takes it; set by the MCP server alone (record.ToolCall).
	FixTools []record.ToolCall `json:"fix_tools,omitempty"`
	// tools is Message as the MCP tools say it (record.Advice), when
	// Message names a command: the tool that takes the step, or that
	// the person runs it. "" is Message said to both.
	tools string
}

// ProfileInfo is one declared profile, marked when in force.
type ProfileInfo struct {
	ID       string `json:"id"`
	Mode     string `json:"mode"`
	InForce  bool   `json:"in_force"`
	ChosenBy string `json:"chosen_by,omitempty"`
}

// RefSummary sums up the reasoning refs' integrity.
type RefSummary struct {
	Tasks   int `json:"tasks"`
	Records int `json:"records"`
	Broken  int `json:"broken"`
	// Unverified counts the tasks that read but whose history does not
	// replay clean (each an error finding).
	Unverified int `json:"unverified"`
}

// Doctor is everything doctor found.
type Doctor struct {
	Findings []Finding     `json:"findings"`
	Profiles []ProfileInfo `json:"profiles"`
	Advisors []AdvisorRow  `json:"advisors"`
	// Operational says in one line that reasoning works, and how, when
	// no advisor can be asked now; empty when one can.
	Operational string `json:"operational,omitempty"`
	// operationalTools is Operational as the MCP tools say it.
	operationalTools string
	// Refs is nil outside a repository: there are no refs to check.
	Refs   *RefSummary `json:"refs,omitempty"`
	Errors int         `json:"errors"`
}

// SayToTools says each finding's message, and Operational, as the MCP
// tools say them (record.Advice.ToolMessage): naming the tool that takes
// a step, or saying that the person runs the command (hooks install,
// trust, pull), never a command line as the step a client takes.
func (d *Doctor) SayToTools() {
	for i := range d.Findings {
		f := &d.Findings[i]
		f.Message = record.Advice{CLI: f.Message, Tools: f.tools}.ToolMessage()
	}
	d.Operational = record.Advice{CLI: d.Operational, Tools: d.operationalTools}.ToolMessage()
	reasonsToTools(d.Advisors)
}

// maxNeutralityFindings is how many neutrality violations doctor lists
// one by one; the rest are counted in one more finding.
const maxNeutralityFindings = 20

// RunDoctor checks the declarations, the profiles and the reasoning refs.
// It contacts no advisor. Outside a repository (Options.Outside) it checks
// what this machine would use: the shipped declarations and the user's,
// the settings, the profiles and the advisors; no refs, locks, hooks or
// neutrality, which are a repository's.
func (e *Session) RunDoctor(ctx context.Context) (*Doctor, error) {
	d := &Doctor{Findings: []Finding{}}
	cat, findings, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	st, err := e.Settings()
	if err != nil {
		return nil, err
	}
	findings = append(findings, advisor.CheckDisabled(cat, st.Disabled)...)
	findings = append(findings, advisor.CheckPlaintext(cat)...)
	if u := cat.Untrusted; u != nil {
		findings = append(findings, advisor.Finding{Severity: advisor.SeverityWarning, Code: "untrusted_overlay",
			Subject: u.File, Message: record.Printable(u.Notice())})
	}
	for _, f := range findings {
		d.Findings = append(d.Findings, Finding{Severity: string(f.Severity), Code: f.Code,
			Subject: f.Subject, Message: f.Message, Where: f.Where})
		if f.Code == "untrusted_overlay" {
			d.Findings[len(d.Findings)-1].tools = record.Printable(cat.Untrusted.ToolNotice())
		}
	}
	if f := e.Repo.ObjectFormat; f != "" && f != "sha1" {
		// Reading works (there is nothing to read); every write refuses
		// (identify), which doctor said nothing of.
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "object_format", Subject: "extensions.objectFormat",
			Message: "objects are named with " + f + " (extensions.objectFormat), so every write is refused: git reason stores records in SHA-1 repositories only"})
	}
	if st.Actor.String() == "" {
		// Reading needs none, and works; the first write would refuse.
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "no_identity", Subject: "user.name, user.email",
			Message: "no identity, so every write is refused: " + setIdentity.CLI, tools: "no identity, so every write is refused: " + setIdentity.Tools})
	}
	switch signers, serr := e.signersFile(); {
	case errors.Is(serr, advisor.ErrTooLarge), errors.Is(serr, advisor.ErrNotRegular):
		// Read by nothing, as trust refuses it: said here, or no command
		// would say why the keys it lists count for nothing.
		path := e.repositorySigners()
		why := fmt.Sprintf("is larger than %d bytes", advisor.MaxDeclarationBytes)
		if errors.Is(serr, advisor.ErrNotRegular) {
			why = "is not a regular file"
		}
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "ignored_signers", Subject: path,
			Message: record.Printable(path + " " + why + ": it is ignored, so no signature by a key it lists counts as a known signer's")})
	case signers != nil && e.signersTrusted() == nil:
		path := e.repositorySigners()
		a := untrustedSigners(path)
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "untrusted_signers", Subject: path,
			Message: record.Printable(a.String()), tools: record.Printable(a.ToolMessage())})
	}
	prof, by, perr := e.Profile()
	if perr != nil {
		d.Findings = append(d.Findings, Finding{Severity: "error", Code: "unknown_profile", Subject: "profile " + st.Profile.Name, Message: perr.Error()})
	}
	for _, p := range cat.Profiles {
		info := ProfileInfo{ID: p.ID, Mode: string(p.Mode)}
		if perr == nil && p.ID == prof.ID {
			info.InForce, info.ChosenBy = true, by
		}
		d.Profiles = append(d.Profiles, info)
	}
	if e.InRepository() {
		if err := e.doctorRepository(ctx, d, st.HooksPath); err != nil {
			return nil, err
		}
	}
	if perr == nil { // an unknown profile is a finding above; no availability without one
		if err := e.doctorAdvisors(ctx, d); err != nil {
			return nil, err
		}
	}
	for _, f := range d.Findings {
		if f.Severity == "error" {
			d.Errors++
		}
	}
	return d, nil
}

// doctorRepository checks what belongs to the repository: the reasoning
// refs, stale locks, a failed catch-up, the hooks and neutrality.
func (e *Session) doctorRepository(ctx context.Context, d *Doctor, hooksPath string) error {
	d.Refs = &RefSummary{}
	tasks, broken, err := e.Store.TasksBroken(ctx)
	if err != nil {
		return err
	}
	for _, b := range broken {
		f := b.Finding()
		if b.Err == nil {
			// A ref of no task: no task is left out, nothing reads it.
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: f.Code, Subject: f.Task, Message: f.Message})
			continue
		}
		d.Refs.Tasks++
		d.Refs.Broken++
		d.Findings = append(d.Findings, Finding{Severity: "error", Code: f.Code, Subject: f.Task, Message: f.Message})
	}
	// The status index counts the records of every task that reads, kept
	// by head, so that a doctor with nothing moved reads no task; a task
	// it leaves out is read here, for what is wrong with it (the index
	// says nothing of it, and a later read of a resident session still
	// reports it: doctor's finding says it here).
	readable, entries, err := gitstore.Index{Store: e.Store, Quiet: true}.Tasks(ctx)
	if err != nil {
		return err
	}
	indexed := make(map[string]bool, len(readable))
	for _, t := range readable {
		indexed[t.Task] = true
	}
	for _, t := range tasks {
		d.Refs.Tasks++
		if indexed[t.Task] {
			st := entries[t.Task].Status
			d.Refs.Records += st.Records
			if st.DoesNotVerify != nil {
				// Its history breaks the rules: read surfaces show it
				// recomputed, and a pull would have refused it.
				d.Refs.Unverified++
				nv := record.NotVerified(st.DoesNotVerify)
				d.Findings = append(d.Findings, Finding{Severity: "error", Code: "does_not_verify", Subject: t.Task,
					Message: nv.String(), tools: nv.ToolMessage()})
			}
			continue
		}
		_, recs, err := e.Store.Load(ctx, t.Task)
		if err == nil {
			_, err = record.Derive(t.Task, recs)
		}
		if err != nil {
			d.Refs.Broken++
			f := Finding{Severity: "error", Code: "broken_ref", Subject: t.Task, Message: err.Error()}
			if errors.Is(err, record.ErrUnreadable) {
				// What removes it, when task delete would (on no remote):
				// the person's step, no tool's.
				if elsewhere, lerr := e.Store.Elsewhere(ctx, t.Task); lerr == nil && len(elsewhere) == 0 {
					del := "'git reason task delete " + t.Task + "'"
					f.Message, f.tools = f.Message+"; or remove it: "+del, f.Message+"; or the person removes it: "+del
				}
			}
			d.Findings = append(d.Findings, f)
			continue
		}
		d.Refs.Records += len(recs)
	}
	e.staleLocks(d, time.Now())
	if left, err := e.Repo.LeftStaged(ctx); err == nil && len(left) > 0 {
		n := 0
		for _, refs := range left {
			n += refs
		}
		what := fmt.Sprintf("%d refs under %s, left by a git reason push that was stopped, keep their commits and would travel with 'git push --mirror'", n, gitstore.StagedPrefix)
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "push_refs_left", Subject: gitstore.StagedPrefix,
			Message: what + ": the next 'git reason push' that sends a task removes them",
			tools:   what + ": the next 'git reason push' that sends a task, which the person runs (no tool pushes), removes them"})
	}
	for _, l := range e.CatchUpPending() {
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "catch_up_failed", Subject: "fetched reasoning", Message: l, tools: personPulls(l)})
	}
	// A fetched history held back is said once by the pull that held it;
	// here it is said for as long as it waits, as the web's task list does.
	held, err := e.Quarantined(ctx)
	if err != nil {
		return err
	}
	for _, task := range slices.Sorted(maps.Keys(held)) {
		d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "quarantined", Subject: task,
			Message: record.Printable("task " + task + ": " + held[task].Said())})
	}
	for _, h := range hooks.Check(hooks.Dir(hooksPath, e.Repo.WorkTree, e.Repo.CommonDir)) {
		switch {
		case e.Repo.WorkTree == "":
			// A bare repository makes no commits: its client hooks never
			// run, and hooks install refuses it.
		case h.Modified:
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "hook_modified", Subject: "hook " + h.Hook,
				Message: "the " + h.Hook + " hook carries git reason's marker but is not its shim: compare it with a fresh install ('git reason hooks install --force' keeps a copy)", Where: h.Path,
				tools: "the " + h.Hook + " hook carries git reason's marker but is not its shim: the person compares it with a fresh install, 'git reason hooks install --force', which keeps a copy (no tool installs hooks)"})
		case !h.Installed:
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "hook_not_installed", Subject: "hook " + h.Hook,
				Message: "the " + h.Hook + " hook is not installed: run 'git reason hooks install'", Where: h.Path,
				tools: "the " + h.Hook + " hook is not installed: " + personInstallsHooks})
		case !h.Current:
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "hook_outdated", Subject: "hook " + h.Hook,
				Message: "the " + h.Hook + " hook is not executable: run 'git reason hooks install'", Where: h.Path,
				tools: "the " + h.Hook + " hook is not executable: " + personInstallsHooks})
		}
	}
	if e.Repo.WorkTree != "" {
		if _, configured, err := LoadNeutralityConfig(e.Repo.WorkTree); err != nil {
			d.Findings = append(d.Findings, Finding{Severity: "error", Code: "neutrality_config", Subject: neutrality.ConfigPath, Message: err.Error()})
		} else if !configured {
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "neutrality_not_configured", Subject: neutrality.ConfigPath,
				Message: "neutrality is not configured: add " + neutrality.ConfigPath + " to say which files must not name providers"})
		}
	}
	return e.doctorNeutrality(ctx, d)
}

// doctorNeutrality runs the provider-neutrality check over the work tree,
// as 'git reason check neutrality' does: each violation is an error
// finding, the first maxNeutralityFindings one by one.
func (e *Session) doctorNeutrality(ctx context.Context, d *Doctor) error {
	if e.Repo.WorkTree == "" {
		return nil
	}
	if _, configured, err := LoadNeutralityConfig(e.Repo.WorkTree); err != nil || !configured {
		return nil // reported above
	}
	res, err := e.CheckNeutrality(ctx, NeutralityRequest{Dir: e.Repo.WorkTree})
	if err != nil {
		return err
	}
	for i, v := range res.Violations {
		if i == maxNeutralityFindings {
			d.Findings = append(d.Findings, Finding{Severity: "error", Code: "neutrality_violation", Subject: neutrality.ConfigPath,
				Message: "and " + record.Plural(len(res.Violations)-i, "more violation") + ": see them all with 'git reason check neutrality'",
				tools:   "and " + record.Plural(len(res.Violations)-i, "more violation") + ": the check_neutrality tool lists them all"})
			break
		}
		d.Findings = append(d.Findings, Finding{Severity: "error", Code: "neutrality_violation", Subject: record.Printable(v.Name),
			Where:   fmt.Sprintf("%s:%d:%d", record.Printable(v.Path), v.Line, v.Col),
			Message: fmt.Sprintf("a provider-neutral file names %s (%s): rename it, or allow it with a reason in %s", record.Printable(v.Text), record.Printable(v.DeclaredAs), neutrality.ConfigPath)})
	}
	return nil
}

// doctorAdvisors lists every declared advisor with its availability and
// capabilities, as 'git reason advisors' does, and says when none can be
// asked that reasoning still works.
func (e *Session) doctorAdvisors(ctx context.Context, d *Doctor) error {
	list, err := e.Advisors(ctx)
	if err != nil {
		return err
	}
	d.Advisors = list.Advisors
	for _, a := range list.Advisors {
		if u := a.Unreadable; u != nil {
			said := u.Said(a.ID)
			d.Findings = append(d.Findings, Finding{Severity: "warning", Code: "unreadable_answers", Subject: "advisor " + a.ID, Message: said.CLI, tools: said.Tools})
		}
	}
	for _, a := range list.Advisors {
		if a.Status == "available" || a.Status == "recovering" {
			return nil
		}
	}
	works := fmt.Sprintf("no advisor can be asked now (profile %s, mode %s): reasoning still works; a plan is a local-review checklist, answered ", list.Profile, list.Mode)
	d.Operational = works + "with 'git reason conclude TASK --local-review N=ANSWER'"
	d.operationalTools = works + "in the conclude tool's local_review"
	return nil
}

// personInstallsHooks is how a doctor finding tells the MCP tools to have
// the hooks installed: no tool installs them.
const personInstallsHooks = "'git reason hooks install', which the person runs (no tool installs hooks), installs it"

// personPulls is a failed catch-up's line (CatchUpPending) as the MCP
// tools say it: its closing "run 'git reason pull …'" is the person's
// step, since no tool fetches; "" when it closes otherwise.
func personPulls(line string) string {
	i := strings.LastIndex(line, "run 'git reason pull")
	if i < 0 || !strings.HasSuffix(line, "'") {
		return ""
	}
	return line[:i] + line[i+len("run "):] + ", which the person runs (no tool fetches)"
}
