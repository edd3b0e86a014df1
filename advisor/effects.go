package advisor

import (
	"fmt"
	"reflect"
	"strings"

	"git-reason/policy"
	"git-reason/schemas"
)

// Effects is everything trusting a repository overlay changes, compared
// with the same overlay untrusted, for a person to read before trusting.
type Effects struct {
	SHA256   string          // what trust records (Catalog.Repository)
	Files    []CoveredFile   // the work-tree files its exec commands name
	Advisors []Effect        // advisors added or changed
	Profiles []ProfileEffect // profiles added or whose mode changes
}

// Effect is what a trusted repository overlay makes one advisor do that
// the untrusted one would not: the advisor's whole effective declaration,
// with the fields trusting changes by what they change.
type Effect struct {
	Advisor string `json:"advisor"`
	New     bool   `json:"new"` // declared by the overlay
	// Changed lists the GatedFields it changes: what runs or is sent.
	Changed []string `json:"changed,omitempty"`
	// Attribution lists the AttributionFields it changes: what a
	// consultation record attributes.
	Attribution []string `json:"attribution,omitempty"`
	// Review lists the ReviewFields it changes in a way that could lower
	// the review a plan asks for.
	Review []string `json:"review,omitempty"`
	Declaration
}

// ProfileEffect is a profile a trusted repository overlay adds, or whose
// mode it changes (narrower asks for less review, wider sends off this
// machine what offline or ci keeps on it).
type ProfileEffect struct {
	Profile string      `json:"profile"`
	New     bool        `json:"new"`
	Mode    policy.Mode `json:"mode"`
	Was     policy.Mode `json:"was,omitempty"` // the mode untrusted
}

// OverlayEffects loads the declarations twice, with the repository overlay
// trusted and untrusted, and returns what trusting it changes, with the
// content's SHA-256 that trust would record. No overlay is an error
// wrapping fs.ErrNotExist.
func OverlayEffects(src Sources) (*Effects, error) {
	if _, err := ReadRegular(src.Repository, MaxDeclarationBytes, false); err != nil {
		return nil, err
	}
	src.RepositoryTrusted, src.RepositoryRecorded = func(string) bool { return true }, nil
	full, _, err := Load(src)
	if err != nil {
		return nil, err
	}
	src.RepositoryTrusted = nil
	safe, _, err := Load(src)
	if err != nil {
		return nil, err
	}
	if full.Repository == "" || safe.Repository != full.Repository {
		// The file, or a file its commands name, changed between the two
		// reads: show nothing rather than something that is not what
		// would be trusted.
		return nil, fmt.Errorf("%s changed while it was read: run the command again", src.Repository)
	}
	out := &Effects{SHA256: full.Repository, Files: full.RepositoryFiles}
	for _, d := range full.Advisors {
		u, ok := safe.Advisor(d.ID)
		if !ok {
			out.Advisors = append(out.Advisors, Effect{Advisor: d.ID, New: true, Declaration: d})
			continue
		}
		e := Effect{Advisor: d.ID, Declaration: d, Changed: changedFields(d, u, GatedFields),
			Attribution: changedFields(d, u, AttributionFields), Review: changedFields(d, u, ReviewFields)}
		if len(e.Changed)+len(e.Attribution)+len(e.Review) > 0 {
			out.Advisors = append(out.Advisors, e)
		}
	}
	for _, p := range full.Profiles {
		u, ok := safe.Profile(p.ID)
		switch {
		case !ok:
			out.Profiles = append(out.Profiles, ProfileEffect{Profile: p.ID, New: true, Mode: p.Mode})
		case u.Mode != p.Mode:
			out.Profiles = append(out.Profiles, ProfileEffect{Profile: p.ID, Mode: p.Mode, Was: u.Mode})
		}
	}
	return out, nil
}

// changedFields lists the fields, by YAML name, whose values differ.
func changedFields(a, b Declaration, fields []string) []string {
	var changed []string
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	for _, f := range fields {
		i := schemas.Fields(av.Type())[f]
		if !reflect.DeepEqual(av.Field(i).Interface(), bv.Field(i).Interface()) {
			changed = append(changed, f)
		}
	}
	return changed
}

// DescribeAttribution says in one line what a consultation of the advisor
// records as the model that answered when the advisor reports none.
func (d Declaration) DescribeAttribution() string {
	model := "no model"
	if d.Model != "" {
		model = fmt.Sprintf("model %q", d.Model)
	}
	return fmt.Sprintf("a consultation that reports no model records %s (declared), vendor %q, provider %q", model, d.Vendor, d.Provider)
}

// DescribeReview says in one line the values of the given review fields.
func (d Declaration) DescribeReview(fields []string) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		switch f {
		case "capabilities":
			parts = append(parts, "capabilities ["+strings.Join(d.Capabilities, ", ")+"]")
		case "cooldown":
			parts = append(parts, "cooldown "+d.CooldownOrDefault().String())
		case "timeout":
			parts = append(parts, "timeout "+d.TimeoutOrDefault().String())
		}
	}
	return strings.Join(parts, ", ")
}
