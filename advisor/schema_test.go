package advisor

import (
	"encoding/json"
	"reflect"
	"testing"

	"git-reason/schemas"
	"git-reason/share"
)

var schemaFiles = []string{"share.advisors.json", "share.providers.json", "share.vendors.json", "share.profiles.json", "share.overlay.json"}

// Every declaration schema compiles on its own (no reference leaves it).
func TestSchemasCompile(t *testing.T) {
	for _, name := range schemaFiles {
		if _, err := schemas.Compile(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The overlay schema repeats the entry shapes of the other files (each
// document is self-contained); they must not drift apart.
func TestOverlaySchemaMatchesFileSchemas(t *testing.T) {
	defs := func(name string) map[string]any {
		data, err := schemas.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Defs map[string]any `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return doc.Defs
	}
	overlay := defs("share.overlay.json")
	for _, name := range schemaFiles[:4] {
		for k, v := range defs(name) {
			if !reflect.DeepEqual(overlay[k], v) {
				t.Errorf("$defs.%s differs between %s and share.overlay.json", k, name)
			}
		}
	}
}

// The schemas and the Go types agree on the field names of each entry.
func TestSchemaFieldsMatchTypes(t *testing.T) {
	data, err := schemas.FS.ReadFile("share.overlay.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for def, typ := range map[string]reflect.Type{
		"advisor": reflect.TypeFor[Declaration](), "capability": reflect.TypeFor[Capability](),
		"provider": reflect.TypeFor[Provider](), "vendor": reflect.TypeFor[Vendor](),
		"model": reflect.TypeFor[Model](), "profile": reflect.TypeFor[Profile](),
	} {
		var props []string
		for p := range doc.Defs[def].Properties {
			props = append(props, p)
		}
		fields := schemas.Fields(typ)
		if len(props) != len(fields) {
			t.Errorf("%s: schema has %d properties, %s has %d fields", def, len(props), typ.Name(), len(fields))
		}
		for _, p := range props {
			if _, ok := fields[p]; !ok {
				t.Errorf("%s: schema property %q has no field in %s", def, p, typ.Name())
			}
		}
	}
}

// TestShippedValidate: each shipped declaration file validates against its
// schema. Load decodes them without their schemas (schemas.DecodeShipped):
// a build whose tables its schemas refuse fails here, not in a user's
// process.
func TestShippedValidate(t *testing.T) {
	for name, schema := range map[string]string{
		share.AdvisorsFile: schemas.ShareAdvisors, share.ProvidersFile: schemas.ShareProviders,
		share.VendorsFile: schemas.ShareVendors, share.ProfilesFile: schemas.ShareProfiles,
	} {
		data, err := share.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var s sections
		if _, err := schemas.Decode("share/"+name, data, schema, &s); err != nil {
			t.Errorf("share/%s: %v", name, err)
		}
		var shipped sections
		if _, err := schemas.DecodeShipped("share/"+name, data, &shipped); err != nil || !reflect.DeepEqual(s, shipped) {
			t.Errorf("share/%s decodes otherwise without its schema: %v", name, err)
		}
	}
	if len(share.Files) != 4 {
		t.Errorf("share.Files names %d files; this test checks 4", len(share.Files))
	}
}
