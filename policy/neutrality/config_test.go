package neutrality

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"git-reason/reliability/harness"
	"git-reason/schemas"
)

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ file, want string }{
		// Not YAML.
		{"bad_yaml.yaml", `:2:10: invalid YAML: the '[' list that starts here is not closed: end it with ']' (reading stopped at line 3, column 6)`},
		{"bad_indent.yaml", `:3:8: invalid YAML: a ':' where no field can start: indent this line as the fields above it are, or quote a value that holds ": "`},
		{"tab_indent.yaml", `:2:1: invalid YAML: a tab indents this line: YAML indents with spaces only`},
		{"unknown_anchor.yaml", `:2:10: invalid YAML: the alias *adapters names no anchor: mark the value it stands for with &adapters before it`},
		{"two_documents.yaml", `:2:1: more than one YAML document`},
		{"duplicate_field.yaml", `:3:1: neutral: given twice (first at line 1)`},
		// Not the schema.
		{"unknown_field.yaml", `:3:1: nuetral: unknown field (known: allow, exclude, neutral, terms)`},
		{"unknown_allow_field.yaml", `:5:5: allow[1].paht: unknown field (known: match, path, reason)`},
		{"unknown_field_in_alias.yaml", `:9:5: allow[0].extra: unknown field (known: match, path, reason)`},
		{"not_a_mapping.yaml", `:1:1: expected a mapping at the top level, got a list`},
		{"wrong_type_string.yaml", `:1:10: neutral: expected a list, got a string`},
		{"wrong_type_term.yaml", `:3:5: terms[1]: expected a string, got a number`},
		{"wrong_type_allow.yaml", `:2:3: allow: expected a list, got a mapping`},
		{"wrong_type_match.yaml", `:3:12: allow[0].match: expected a string, got a boolean`},
		{"missing_reason.yaml", `:2:5: allow[0]: missing required field "reason"`},
		{"empty_term.yaml", `:1:17: terms[1]: length must be >= 1, but got 0`},
		// Beyond the schema.
		{"bad_glob.yaml", `:4:5: exclude[1]: glob "src/[a": bad pattern "[a"`},
		{"bad_globstar.yaml", `:2:5: neutral[0]: glob "src/a**": '**' must be a whole path segment`},
		{"bad_empty_segment.yaml", `:2:5: neutral[0]: glob "src//x" has an empty path segment`},
		{"bad_regexp.yaml", ":3:12: allow[0].match: bad regular expression: error parsing regexp: missing closing ): `(acme`"},
		{"blank_reason.yaml", `:4:13: allow[0].reason: reason is empty`},
		{"term_without_words.yaml", `:3:5: terms[1]: term "--" has no letter or digit`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			name, data := configFile(t, tt.file)
			c, err := ParseConfig(name, data)
			if c != nil {
				t.Errorf("ParseConfig returned a config with error %v", err)
			}
			var de *schemas.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("ParseConfig error = %v (%T), want *schemas.DecodeError", err, err)
			}
			if got, want := err.Error(), name+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

func TestParseConfigValid(t *testing.T) {
	tests := []struct {
		file string
		want *Config
	}{
		{"valid.yaml", &Config{
			Neutral: []string{"src/**"},
			Exclude: []string{},
			Terms:   []string{"Zeta", "2024-01-01"},
			Allow:   []Allow{{Path: "src/hosts.go", Match: `(?i)host = "acme`, Reason: "host identification only"}},
		}},
		{"empty.yaml", &Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			name, data := configFile(t, tt.file)
			got, err := ParseConfig(name, data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseConfig = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSchemaCoversConfig ties the schema to the Go type: every field of
// Config and Allow is a property of the schema, and nothing more.
func TestSchemaCoversConfig(t *testing.T) {
	data, err := schemas.FS.ReadFile(schemas.Neutrality)
	if err != nil {
		t.Fatal(err)
	}
	props := func(v map[string]any) []string {
		var out []string
		for k := range v["properties"].(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	fields := func(v any) []string {
		var out []string
		for name := range schemas.Fields(reflect.TypeOf(v)) {
			out = append(out, name)
		}
		sort.Strings(out)
		return out
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := props(doc), fields(Config{}); !reflect.DeepEqual(got, want) {
		t.Errorf("schema properties %v, Config fields %v", got, want)
	}
	allow := doc["properties"].(map[string]any)["allow"].(map[string]any)["items"].(map[string]any)
	if got, want := props(allow), fields(Allow{}); !reflect.DeepEqual(got, want) {
		t.Errorf("schema allow properties %v, Allow fields %v", got, want)
	}
}

func TestConfigCompileRules(t *testing.T) {
	c := &Config{
		Neutral: []string{"src", "docs/*.md"},
		Exclude: []string{"src/adapters/**"},
		Allow:   []Allow{{Path: "src/hosts.go", Match: `host = "acme`, Reason: "host"}},
	}
	r, err := c.compile()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"src/a.go":             true,
		"src/deep/b.go":        true,
		"src/adapters/acme.go": false,
		"docs/guide.md":        true,
		"docs/deep/guide.md":   false,
		"share/vendors.yaml":   false,
		ConfigPath:             false,
		DeclarationsPath:       false,
	} {
		if got := r.checks(p); got != want {
			t.Errorf("checks(%q) = %v, want %v", p, got, want)
		}
	}
	if !r.allowed("src/hosts.go", []byte(`	host = "acme.example"`)) {
		t.Error("allow entry did not accept its line")
	}
	if r.allowed("src/hosts.go", []byte(`	client = acme`)) || r.allowed("src/other.go", []byte(`host = "acme`)) {
		t.Error("allow entry accepted another line or file")
	}
	everything, err := (&Config{}).compile()
	if err != nil || !everything.checks("any/file.go") || everything.checks(ConfigPath) || everything.checks(DeclarationsPath) {
		t.Errorf("a configuration without neutral globs must check every file but itself and the declarations (err %v)", err)
	}
}

// configFile reads testdata/config/file, returning its path and contents.
func configFile(t *testing.T, file string) (string, []byte) {
	t.Helper()
	name := filepath.Join("testdata", "config", file)
	data := harness.ReadFile(t, name)
	return name, data
}
