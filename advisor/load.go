package advisor

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"git-reason/schemas"
	"git-reason/share"
)

// Sources says where declarations come from. The zero value loads the
// embedded share/ files alone.
type Sources struct {
	// Base holds advisors.yaml, providers.yaml, vendors.yaml and
	// profiles.yaml; nil means the embedded share.FS.
	Base fs.FS
	// User is the user overlay (advisors.yaml in git reason's directory of
	// the user's configuration); empty, or a file that does not exist,
	// means none.
	User string
	// Repository is the repository overlay (see RepositoryOverlayPath);
	// empty, or a file that does not exist, means none. It must be a
	// regular file in a real directory (no symbolic link, FIFO or device).
	Repository string
	// RepositoryTrusted says whether the user trusted the repository
	// overlay's content, given its SHA-256 in hex; nil trusts nothing.
	// Untrusted, the overlay's new advisors, gated and attribution fields,
	// and whatever could lower review are ignored (see GatedFields,
	// AttributionFields, ReviewFields) and the catalog's Untrusted says
	// which.
	RepositoryTrusted func(sha256 string) bool
	// RepositoryRecorded says whether trust is recorded for this
	// repository at all, whatever its content. When it says not, no sum
	// can match, and Load does not read the work-tree files the overlay's
	// commands name (a stranger's clone would cost every command up to
	// 64 MiB of hashing): it looks at what each is (a symbolic link, not
	// a regular file, too large), for the notice, and leaves its digest
	// empty, so Catalog.Repository is not what trust records. nil reads
	// them.
	RepositoryRecorded func() bool
	// RepositoryContent, when not nil, is the repository overlay's
	// content, read instead of the file at Repository (which still names
	// it, in its work tree): the overlay as staged or committed, for a
	// check of the index or of commits.
	RepositoryContent []byte
}

// RepositoryOverlay is the repository overlay's path from a work tree's
// top, as git names it.
const RepositoryOverlay = ".reason/advisors.yaml"

// RepositoryOverlayPath is .reason/advisors.yaml under a work tree's top
// directory.
func RepositoryOverlayPath(worktree string) string {
	return filepath.Join(worktree, filepath.FromSlash(RepositoryOverlay))
}

// Load reads the declarations and applies the overlays in this order: the
// embedded files, then the user overlay, then the repository overlay (the
// repository wins, as git's own local config wins over the global one).
//
// Within an overlay, an entry of any section (advisors, capabilities,
// providers, vendors, profiles) whose id is already declared overrides it
// field by field: the fields the entry sets replace the declared ones, the
// fields it omits are kept, and a list (capabilities, command, models)
// replaces the whole list. An entry with a new id is added at the end of its
// section. An overlay's optional top-level order: [id, ...] then moves those
// advisors to the front of the preference order, in that order; the others
// keep their relative order after them.
//
// Strictness: bad YAML, an unknown field, a wrong type or a value the
// file's schema refuses fails the load with a *ParseError naming file, line
// and field (bad input). Problems of meaning (unresolved references,
// duplicate ids, unknown capabilities, transports and modes) do not fail it:
// they are returned as findings, all at once, for doctor to report. Any
// other error is an I/O failure.
func Load(src Sources) (*Catalog, []Finding, error) {
	base := src.Base
	if base == nil {
		base = share.FS
	}
	l := &loader{cat: &Catalog{}}
	baseFiles := map[string]string{
		share.AdvisorsFile:  schemas.ShareAdvisors,
		share.ProvidersFile: schemas.ShareProviders,
		share.VendorsFile:   schemas.ShareVendors,
		share.ProfilesFile:  schemas.ShareProfiles,
	}
	for _, name := range share.Files {
		data, err := fs.ReadFile(base, name)
		if err != nil {
			return nil, nil, fmt.Errorf("read embedded %s: %w", name, err)
		}
		schema := baseFiles[name]
		if src.Base == nil {
			// This program's own tables: TestShippedValidate holds each
			// to its schema, which no process need compile again.
			schema = ""
		}
		if err := l.apply(path.Join("share", name), schema, data); err != nil {
			return nil, nil, err
		}
	}
	if src.User != "" {
		data, err := ReadRegular(src.User, MaxDeclarationBytes, true)
		if err := overlayError(src.User, err); err != nil {
			return nil, nil, err
		}
		if data != nil {
			if err := l.apply(src.User, schemas.Overlay, data); err != nil {
				return nil, nil, err
			}
		}
	}
	if src.Repository != "" {
		data, err := src.RepositoryContent, error(nil)
		if data == nil {
			data, err = readRepositoryOverlay(src.Repository)
		}
		if err := overlayError(src.Repository, err); err != nil {
			return nil, nil, err
		}
		if data != nil {
			doc, err := decodeFile(src.Repository, schemas.Overlay, data)
			if err != nil {
				return nil, nil, err
			}
			top := filepath.Dir(filepath.Dir(src.Repository))
			runs, files, named := l.repositoryRuns(doc, top, src.RepositoryRecorded)
			sum := coverFiles(Sum(data), files)
			l.cat.Repository, l.cat.RepositoryFiles = sum, files
			l.untrusted = src.RepositoryTrusted == nil || !src.RepositoryTrusted(sum)
			l.applyDoc(doc)
			if len(l.ignored) > 0 {
				l.cat.Untrusted = &Untrusted{File: src.Repository, SHA256: sum, Ignored: l.ignored, Files: files}
			}
			if !l.untrusted {
				// They run in the work tree's top, where the files trust
				// covers are.
				at := positions(l.cat.Advisors)
				for _, id := range runs {
					if i, ok := at[id]; ok {
						l.cat.Advisors[i].Dir, l.cat.Advisors[i].Covered = top, named[id]
					}
				}
			}
		}
	}
	return l.cat, append(l.findings, Validate(l.cat)...), nil
}

// loader accumulates the catalog and the findings met while merging.
type loader struct {
	cat      *Catalog
	findings []Finding
	// untrusted makes apply drop what needs trust; ignored says what.
	untrusted bool
	ignored   []string
}

// apply parses one file strictly, validates it against its schema and
// merges it into the catalog.
func (l *loader) apply(file, schema string, data []byte) error {
	doc, err := decodeFile(file, schema, data)
	if err != nil {
		return err
	}
	l.applyDoc(doc)
	return nil
}

// applyDoc merges a parsed file into the catalog.
func (l *loader) applyDoc(doc *document) {
	if l.untrusted {
		l.ignored = append(l.ignored, l.withoutGated(doc)...)
	}
	l.cat.Capabilities = merge(l, "capability", l.cat.Capabilities, doc.capabilities)
	l.cat.Advisors = merge(l, "advisor", l.cat.Advisors, doc.advisors)
	l.cat.Providers = merge(l, "provider", l.cat.Providers, doc.providers)
	l.cat.Vendors = merge(l, "vendor", l.cat.Vendors, doc.vendors)
	l.cat.Profiles = merge(l, "profile", l.cat.Profiles, doc.profiles)
	l.reorder(doc.order, doc.orderWhere)
}

// repositoryRuns lists the exec advisors the repository overlay doc
// declares, or sets a field of that runs something (GatedFields), as
// they would be once it is trusted, and the work-tree files their
// commands name (coverer, run in top; only looked at, not read, when
// recorded says no trust is recorded), sorted by path, each once, and
// by advisor the files its command names.
func (l *loader) repositoryRuns(doc *document, top string, recorded func() bool) ([]string, []CoveredFile, map[string][]CoveredFile) {
	var runs []string
	var files []CoveredFile
	at := positions(l.cat.Advisors)
	var cover *coverer
	for _, e := range doc.advisors {
		d := e.val
		if i, ok := at[d.ID]; ok {
			if !slices.ContainsFunc(e.keys, func(k string) bool { return slices.Contains(GatedFields, k) }) {
				continue
			}
			d = l.cat.Advisors[i]
			overrideFields(&d, &e.val, e.keys)
		}
		if d.Adapter != AdapterExec || slices.Contains(runs, d.ID) {
			continue
		}
		runs = append(runs, d.ID)
		if cover == nil {
			cover = newCoverer(top)
			cover.stat = recorded != nil && !recorded()
		}
		files = append(files, cover.files(d.ID, d.Command)...)
	}
	slices.SortFunc(files, func(a, b CoveredFile) int { return strings.Compare(a.Path, b.Path) })
	if cover == nil {
		return runs, files, nil
	}
	return runs, cover.noted(files), cover.named
}

// merge applies one file's entries of a section. An id repeated within the
// same file is a duplicate_id finding and the repetition is ignored.
func merge[T any](l *loader, kind string, list []T, entries []entry[T]) []T {
	seen := map[string]string{}
	at := positions(list)
	for _, e := range entries {
		id := idOf(&e.val)
		if first, dup := seen[id]; dup {
			l.findings = append(l.findings, Finding{Severity: SeverityError, Code: CodeDuplicateID,
				Subject: kind + " " + id, Where: e.where,
				Message: fmt.Sprintf("declared twice in one file (first at %s); this entry is ignored", first)})
			continue
		}
		seen[id] = e.where
		i, ok := at[id]
		if !ok {
			at[id] = len(list)
			list = append(list, e.val)
			continue
		}
		overrideFields(&list[i], &e.val, e.keys)
		src := reflect.ValueOf(&list[i]).Elem().FieldByName("Sources")
		src.Set(reflect.Append(src, reflect.ValueOf(e.where)))
	}
	return list
}

// reorder moves the named advisors to the front, in the given order.
func (l *loader) reorder(order []string, where string) {
	if len(order) == 0 {
		return
	}
	var front, rest []Declaration
	placed := map[string]bool{}
	at := positions(l.cat.Advisors)
	for _, id := range order {
		i, ok := at[id]
		if !ok {
			l.findings = append(l.findings, Finding{Severity: SeverityWarning, Code: CodeUnknownOrderID,
				Subject: "advisor " + id, Where: where,
				Message: "order names an advisor that is not declared"})
			continue
		}
		if !placed[id] {
			front = append(front, l.cat.Advisors[i])
			placed[id] = true
		}
	}
	for _, d := range l.cat.Advisors {
		if !placed[d.ID] {
			rest = append(rest, d)
		}
	}
	l.cat.Advisors = append(front, rest...)
}

// overrideFields copies into dst the fields of src whose YAML names are in
// keys.
func overrideFields[T any](dst, src *T, keys []string) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	fields := schemas.Fields(d.Type())
	for _, k := range keys {
		if i, ok := fields[k]; ok {
			d.Field(i).Set(s.Field(i))
		}
	}
}

// setSources sets v's Sources field.
func setSources[T any](v *T, sources []string) {
	reflect.ValueOf(v).Elem().FieldByName("Sources").Set(reflect.ValueOf(sources))
}

// idReads counts the declarations' ids read finding an entry by id
// (idOf, HasCapability), so that a test holds a load to a few reads of
// each declaration whatever the number of entries: looking each id up
// along the list read 20,000 capabilities' ids 20,000 times each.
var idReads atomic.Int64

func idOf[T any](v *T) string {
	idReads.Add(1)
	return reflect.ValueOf(v).Elem().FieldByName("ID").String()
}

// positions maps each id of list to the position of its first entry, so
// that finding an entry by id costs the same however long a file makes
// the list: looking each one up along the list made a repository's file
// of 30,000 capabilities cost minutes of CPU.
func positions[T any](list []T) map[string]int {
	at := make(map[string]int, len(list))
	for i := range list {
		id := idOf(&list[i])
		if _, ok := at[id]; !ok {
			at[id] = i
		}
	}
	return at
}
