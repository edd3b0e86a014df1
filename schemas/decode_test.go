package schemas_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"git-reason/advisor"
	"git-reason/policy/neutrality"
	"git-reason/schemas"
	"git-reason/share"
)

// fileType is one kind of declarative file and how git reason loads it.
type fileType struct {
	name string
	// load reads data as this kind of file and returns the file name its
	// errors must name, with the error.
	load func(t *testing.T, data []byte) (string, error)
}

// baseFile loads data as the embedded share/<name>, the other embedded
// files as shipped.
func baseFile(name string) func(*testing.T, []byte) (string, error) {
	return func(t *testing.T, data []byte) (string, error) {
		base := fstest.MapFS{}
		for _, f := range share.Files {
			b, err := share.FS.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			base[f] = &fstest.MapFile{Data: b}
		}
		base[name] = &fstest.MapFile{Data: data}
		_, _, err := advisor.Load(advisor.Sources{Base: base})
		return "share/" + name, err
	}
}

func overlay(user bool) func(*testing.T, []byte) (string, error) {
	return func(t *testing.T, data []byte) (string, error) {
		p := filepath.Join(t.TempDir(), "advisors.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src := advisor.Sources{Repository: p}
		if user {
			src = advisor.Sources{User: p}
		}
		_, _, err := advisor.Load(src)
		return p, err
	}
}

var fileTypes = []fileType{
	{"share/advisors.yaml", baseFile(share.AdvisorsFile)},
	{"share/providers.yaml", baseFile(share.ProvidersFile)},
	{"share/vendors.yaml", baseFile(share.VendorsFile)},
	{"share/profiles.yaml", baseFile(share.ProfilesFile)},
	{"user overlay", overlay(true)},
	{".reason/advisors.yaml", overlay(false)},
	{".reason/neutrality.yaml", func(t *testing.T, data []byte) (string, error) {
		name := filepath.Join(t.TempDir(), ".reason", "neutrality.yaml")
		_, err := neutrality.ParseConfig(name, data)
		return name, err
	}},
}

// The same fault in every kind of declarative file is reported the same
// way: the same file:line:column, the same words.
func TestSameFaultSamePlaceInEveryFile(t *testing.T) {
	faults := []struct {
		name, data, want string
	}{
		{"unclosed [ on line 3", "# one\n# two\nkey: [a, b\n# four\n",
			`:3:6: invalid YAML: the '[' list that starts here is not closed: end it with ']' (reading stopped at line 5, column 1)`},
		{"unclosed quote on line 3", "# one\n# two\nkey: 'a\n",
			`:3:6: invalid YAML: the quoted text that starts here is not closed: end it with the quote it starts with`},
		{"tab on line 3", "# one\n# two\n\tkey: a\n", `:3:1: invalid YAML: a tab indents this line: YAML indents with spaces only`},
		{"bad indentation on line 3", "# one\n# two\nkey: a\n  other: b\n", `:4:8: invalid YAML: a ':' where no field can start: indent this line as the fields above it are, or quote a value that holds ": "`},
		{"two documents", "# one\n---\n# three\n---\n", `:4:1: more than one YAML document`},
		{"a list at the top", "# one\n# two\n- a\n", `:3:1: expected a mapping at the top level, got a list`},
		{"unknown field on line 3", "# one\n# two\ncolour: red\n", `:3:1: colour: unknown field (known: `},
		{"key given twice", "# one\ncolour: red\ncolour: blue\n", `:3:1: colour: given twice (first at line 2)`},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			for _, ft := range fileTypes {
				file, err := ft.load(t, []byte(f.data))
				var de *schemas.DecodeError
				if !errors.As(err, &de) {
					t.Errorf("%s: error %v (%T), want a *schemas.DecodeError", ft.name, err, err)
					continue
				}
				if got := err.Error(); !strings.HasPrefix(got, file+f.want) {
					t.Errorf("%s:\n got %s\nwant %s%s", ft.name, got, file, f.want)
				}
			}
		})
	}
}

// A schema violation names the field and its line, in every kind of file.
func TestSchemaViolationNamesFieldAndLine(t *testing.T) {
	cases := map[string]struct{ data, want string }{
		"share/advisors.yaml":     {"advisors:\n  - id: a\n    local: 'yes'\n", `:3:12: advisors[0].local: expected true or false, got a string`},
		"share/providers.yaml":    {"providers:\n  - id: p\n    name: 4\n", `:3:11: providers[0].name: expected a string, got a number`},
		"share/vendors.yaml":      {"vendors:\n  - id: v\n    models: [{id: m, size: 3}]\n", `:3:22: vendors[0].models[0].size: unknown field`},
		"share/profiles.yaml":     {"profiles:\n  - id: p\n    description: [x]\n", `:3:18: profiles[0].description: expected a string, got a list`},
		"user overlay":            {"advisors:\n  - id: a\n    capabilities: x\n", `:3:19: advisors[0].capabilities: expected a list, got a string`},
		".reason/advisors.yaml":   {"advisors:\n  - id: a\n    cooldown: soon\n", `:3:15: advisors[0].cooldown: `},
		".reason/neutrality.yaml": {"neutral: [src]\nallow:\n  - {path: a, match: b}\n", `:3:5: allow[0]: missing required field "reason"`},
	}
	for _, ft := range fileTypes {
		c, ok := cases[ft.name]
		if !ok {
			t.Errorf("no case for %s", ft.name)
			continue
		}
		file, err := ft.load(t, []byte(c.data))
		if err == nil || !strings.HasPrefix(err.Error(), file+c.want) {
			t.Errorf("%s:\n got %v\nwant %s%s", ft.name, err, file, c.want)
		}
	}
}

// checkedText is a type whose own check of its text refuses "10m", which
// the schemas accept as a cooldown.
type checkedText string

func (c *checkedText) UnmarshalText(b []byte) error {
	if string(b) == "10m" {
		return errors.New("not this one")
	}
	*c = checkedText(b)
	return nil
}

// What a value's type refuses once the schema accepted it, and a field
// the Go type does not have, are placed as a schema's faults are:
// file:line:column: field: message.
func TestTypeFaultsArePlaced(t *testing.T) {
	type decl struct {
		ID       string      `yaml:"id"`
		Cooldown checkedText `yaml:"cooldown"`
	}
	var v struct {
		Advisors []decl `yaml:"advisors"`
	}
	for data, want := range map[string]string{
		"advisors:\n  - id: a\n  - id: b\n    cooldown: 10m\n": "f.yaml:4:15: advisors[1].cooldown: not this one",
		"advisors:\n  - id: a\n    transport: cli\n":           "f.yaml:3:5: advisors[0].transport: ",
	} {
		_, err := schemas.Decode("f.yaml", []byte(data), schemas.Overlay, &v)
		var de *schemas.DecodeError
		if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want a DecodeError %s…", data, err, want)
		}
	}
}

// A number past a bound is said with the bound as a person writes it,
// and never the number (the library's message quoted a number of 29
// digits as 1e+29, which no replacement of the file's text found, and
// the bound as 6.7108864e+07).
func TestBoundsSaidAsNumbers(t *testing.T) {
	cases := []struct{ value, want string }{
		{"99999999999999999999999999999", ":3:20: advisors[0].context_bytes: must be at most 67108864"},
		{"99999999", ":3:20: advisors[0].context_bytes: must be at most 67108864"},
		{"12", ":3:20: advisors[0].context_bytes: must be at least 1024"},
	}
	for _, ft := range fileTypes {
		if ft.name != ".reason/advisors.yaml" && ft.name != "user overlay" {
			continue
		}
		for _, c := range cases {
			file, err := ft.load(t, []byte("advisors:\n  - id: a\n    context_bytes: "+c.value+"\n"))
			if err == nil || err.Error() != file+c.want {
				t.Errorf("%s, context_bytes %s:\n got %v\nwant %s%s", ft.name, c.value, err, file, c.want)
			}
		}
	}
}
