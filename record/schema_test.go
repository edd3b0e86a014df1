package record

import "testing"

// TestPrepareEveryKind: what Prepare compiles ahead of a write is, for
// every kind, the three documents the writer validates that kind's
// record against (its body, the envelope, its derived fields), each of
// which compiles; a name Prepare got wrong fails here rather than
// silently compiling nothing ahead.
func TestPrepareEveryKind(t *testing.T) {
	for _, k := range Kinds {
		if err := prepare(k); err != nil {
			t.Errorf("prepare %s: %v", k, err)
		}
	}
}
