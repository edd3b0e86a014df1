// Package advisor knows which independent advisors exist, which can be
// asked right now, and asks them: [Ask] puts one question to one advisor
// through package transport, and [Consult] (the driver) asks a plan's
// advisors and records each outcome. Loading declarations and deriving
// availability contact nothing: availability comes from declarations,
// presence, the mode, a disable list and this clone's recorded outcomes.
//
// # Declarations
//
// [Load] reads the embedded share/ files (advisors with the capability
// vocabulary, providers, vendors with their models, profiles), then the
// user overlay ($XDG_CONFIG_HOME/git-reason/advisors.yaml; the caller says
// where) and the repository overlay (.reason/advisors.yaml, see
// [RepositoryOverlayPath]), repository last so that it wins. An overlay uses
// the same entry shapes (schemas/share.overlay.json) in any of the sections
// advisors, capabilities, providers, vendors and profiles:
//
//	advisors:
//	  - id: some-advisor        # already declared: override these fields
//	    cooldown: 30m
//	  - id: our-gateway         # new: added after the others
//	    transport: api
//	    ...
//	order: [our-gateway, some-advisor]   # these first, the rest after
//
// The repository overlay is a stranger's file: its new advisors, its
// [GatedFields] (what runs or sends something) and [AttributionFields]
// (what a record attributes) apply only when Sources.RepositoryTrusted
// accepts the SHA-256 of the content read (the user's trust store, kept by
// git reason trust), and so do its [ReviewFields] and profile modes
// unless they can only add review; otherwise they are dropped and
// [Catalog].Untrusted says which. When the commands of the exec advisors
// it declares (or sets a gated field of) name files of the work tree
// ([CoveredFile]: the program when it is a path, every argument,
// --option=value, NAME=value, value attached to a short option (-Itools)
// or word of a shell's -c script naming a file or directory there), what
// is accepted is one hash over the content and those files' digests
// ([Catalog].Repository; when Sources.RepositoryRecorded says no trust
// is recorded, which nothing can match, the files are looked at, not
// read), and those advisors run in the work tree's top
// ([Declaration].Dir); their files are read again before each command
// starts ([Declaration].Covered), which does not start when one changed
// since the load. [OverlayEffects] says what
// trusting changes. It must be a regular file ([ReadRegular]).
//
// An exec advisor's workdir says where its command starts:
// [WorkdirRepository] (the default) or [WorkdirEmpty], an empty temporary
// directory outside any git repository (a TMPDIR inside one is passed
// over for the system's), removed once it has answered
// ([Declaration.RunsInEmptyDir]; [Ask]). The shipped agent CLIs say empty: started in a cloned work tree,
// an agent reads the project settings there, which may name commands to
// run. workdir is among [GatedFields].
//
// An entry with a declared id overrides field by field (lists are replaced
// whole); a new id is added at the end; order moves the named advisors to
// the front. Declaration order after overlays is preference order.
//
// Parsing is strict: an unknown field, a wrong type or a value the file's
// schema refuses is a [*ParseError] naming file, line, column and field.
// Problems of meaning are [Finding] values with stable codes ([Validate],
// [CheckDisabled]), reported all at once by git reason doctor.
//
// # Availability and circuits
//
// [Availability] gives every declared advisor, in preference order, a
// [policy.Status] with a reason: disabled, excluded_by_mode, not_configured,
// not_installed, open (with until), recovering or available. Presence comes
// from an [Env]: whether an executable is on PATH and whether a credential
// variable is set, never its value. [Circuit] replays the consultation
// outcomes this clone recorded, on a clock passed in as an argument. They
// come from this clone's [Journal] (.git/reason/outcomes.jsonl), which the
// consult driver appends to and no fetch writes: records from elsewhere,
// whatever origin they claim, never open or close a circuit.
//
// # Profiles
//
// [FindProfile] looks up the execution profile the caller chose (git reason
// chooses from --profile, GIT_REASON_PROFILE, git config reason.profile and
// CI=true, in that order, in its settings).
//
// # Wiring
//
// A command builds a snapshot like this:
//
//	cat, findings, err := advisor.Load(advisor.Sources{
//		User:       userOverlay, // from the caller's settings
//		Repository: advisor.RepositoryOverlayPath(worktree),
//	})
//	prof, err := advisor.FindProfile(cat, profileID, chosenBy)
//	outcomes, err := advisor.Journal{Path: advisor.JournalPath(commonDir)}.Read() // this clone's own
//	snapshot := advisor.Availability(cat.Advisors, advisor.Inputs{
//		Env:      advisor.SystemEnv(),
//		Mode:     prof.Mode,
//		Disabled: disabled, // reason.disable or GIT_REASON_DISABLE, as settings splits it
//		Origin:   origin,
//		Outcomes: outcomes,
//		Now:      time.Now(),
//	})
//	plan := policy.Decide(assessment, prof.Policy(), snapshot)
package advisor
