package ops

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	"git-reason/advisor"
)

// maxOutcomes is how many of an advisor's latest outcomes AdvisorDetails
// lists.
const maxOutcomes = 5

// AdvisorDetails is every declared advisor as the Reasoning page shows it:
// its row of 'git reason advisors', which declaration layers made it, and
// this clone's latest outcomes for it, which its circuit is derived from.
type AdvisorDetails struct {
	Profile  string `json:"profile"`
	Mode     string `json:"mode"`
	ChosenBy string `json:"chosen_by"`
	// Repository is the repository overlay's path from the work tree's
	// top when there is one;
	// RepositoryTrusted says whether 'git reason trust' recorded its
	// content, and Ignored what an untrusted one declared that was not
	// taken.
	Repository        string          `json:"repository,omitempty"`
	RepositoryTrusted bool            `json:"repository_trusted"`
	Ignored           []string        `json:"ignored,omitempty"`
	Advisors          []AdvisorDetail `json:"advisors"`
}

// AdvisorDetail is one declared advisor with where it is declared and what
// happened to this clone's requests to it.
type AdvisorDetail struct {
	AdvisorRow
	// Layers are the declaration layers that set a field of it, in the
	// order they apply: shipped (the embedded share/ files), user (the
	// user's overlay), repository (.reason/advisors.yaml).
	Layers []string `json:"layers"`
	// Sources are the file:line of each declaration.
	Sources []string `json:"sources"`
	// Outcomes are this clone's latest outcomes of it, newest first.
	Outcomes []advisor.Outcome `json:"outcomes"`
}

// Layers of declarations.
const (
	LayerShipped    = "shipped"
	LayerUser       = "user"
	LayerRepository = "repository"
)

// AdvisorDetails lists every declared advisor with its availability now,
// its declaration layers and this clone's latest outcomes. It contacts
// nothing.
func (e *Session) AdvisorDetails(ctx context.Context) (*AdvisorDetails, error) {
	list, err := e.Advisors(ctx)
	if err != nil {
		return nil, err
	}
	cat, _, err := e.Catalog()
	if err != nil {
		return nil, err
	}
	src, err := e.sources()
	if err != nil {
		return nil, err
	}
	_, by, err := e.Profile()
	if err != nil {
		return nil, err
	}
	out := &AdvisorDetails{Profile: list.Profile, Mode: list.Mode, ChosenBy: by, Advisors: make([]AdvisorDetail, 0, len(list.Advisors))}
	if cat.Repository != "" {
		out.Repository = src.Repository
		if rel, err := filepath.Rel(e.Repo.WorkTree, src.Repository); err == nil {
			out.Repository = rel
		}
		out.RepositoryTrusted = src.RepositoryTrusted != nil && src.RepositoryTrusted(cat.Repository)
	}
	if u := cat.Untrusted; u != nil {
		out.Ignored = u.Ignored
	}
	st, outcomes, err := e.ownOutcomes()
	if err != nil {
		return nil, err
	}
	for _, row := range list.Advisors {
		d, _ := cat.Advisor(row.ID)
		det := AdvisorDetail{AdvisorRow: row, Sources: d.Sources, Layers: []string{}, Outcomes: []advisor.Outcome{}}
		for _, s := range d.Sources {
			layer := LayerShipped
			switch {
			case src.Repository != "" && strings.HasPrefix(s, src.Repository+":"):
				layer = LayerRepository
			case src.User != "" && strings.HasPrefix(s, src.User+":"):
				layer = LayerUser
			}
			if !slices.Contains(det.Layers, layer) {
				det.Layers = append(det.Layers, layer)
			}
		}
		for i := len(outcomes) - 1; i >= 0 && len(det.Outcomes) < maxOutcomes; i-- {
			if o := outcomes[i]; o.Advisor == row.ID && o.Origin == st.Origin {
				det.Outcomes = append(det.Outcomes, o)
			}
		}
		slices.SortStableFunc(det.Outcomes, func(a, b advisor.Outcome) int { return b.At.Compare(a.At) })
		out.Advisors = append(out.Advisors, det)
	}
	return out, nil
}
