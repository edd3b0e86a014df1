package schemas

import (
	"io/fs"
	"strings"
	"testing"
)

// Every embedded document compiles on its own (no reference leaves it), and
// a second request returns the compiled schema kept from the first.
func TestEveryDocumentCompilesOnce(t *testing.T) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no schema documents: %v", err)
	}
	for _, name := range names {
		a, err := Compile(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b, _ := Compile(name); a != b {
			t.Errorf("%s compiled twice", name)
		}
	}
	if _, err := Compile("nope.json"); err == nil {
		t.Error("an unknown document compiled")
	}
}

// What YAML can say but a person never means is refused before the schema
// sees it: aliases that multiply, nesting past the bound.
func TestDecodeBounds(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	for i, prev := 0, "a"; i < 6; i++ {
		name := string(rune('b' + i))
		bomb.WriteString(name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n")
		prev = name
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	for name, tc := range map[string]struct{ data, want string }{
		"alias bomb": {bomb.String(), "expands to more than 10000 nodes"},
		"deep":       {"terms: " + deep + "\n", "nested more than 64 levels deep"},
	} {
		var v struct{}
		_, err := Decode("f.yaml", []byte(tc.data), Neutrality, &v)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.yaml:") {
			t.Errorf("%s: error %v, want f.yaml:…: %s", name, err, tc.want)
		}
	}
}
