package share

import (
	"io/fs"
	"testing"
)

// Every file the loader expects is embedded and nothing else is, so a file
// added to share/ without a loader (or a loader without a file) is noticed.
func TestFilesEmbedded(t *testing.T) {
	want := map[string]bool{}
	for _, name := range append([]string{ToolsFile, ContextFile}, Files...) {
		want[name] = true
		data, err := fs.ReadFile(FS, name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		if len(data) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	entries, err := fs.ReadDir(FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s is embedded but not listed in Files", e.Name())
		}
	}
}
