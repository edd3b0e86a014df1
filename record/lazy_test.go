package record_test

import (
	"context"
	"testing"

	"git-reason/record"
	"git-reason/record/storetest"
)

// vouching is a MemStore that vouches that its records decode, as
// gitstore's does: the writer then decodes only what admission reads.
type vouching struct{ *record.MemStore }

func (vouching) RecordsDecode() bool { return true }

// Every admission rule and refusal of the contract suite holds when the
// writer derives lazily.
func TestMemStoreDecodingLazily(t *testing.T) {
	storetest.Run(t, func(*testing.T) record.Store { return vouching{record.NewMemStore()} })
}

// A record that does not decode, on a task the writer derives lazily and
// whose admission reads that record, refuses the append with the error
// Derive gives, as when the store vouches for nothing; nothing is written.
func TestLazyDeriveRefusesWhatDoesNotDecode(t *testing.T) {
	ctx := context.Background()
	errs := map[string]string{}
	for name, store := range map[string]interface {
		record.Store
	}{"plain": record.NewMemStore(), "vouching": vouching{record.NewMemStore()}} {
		w := &record.Writer{Store: store, Actor: "Ann <ann@example.com>", Origin: "o"}
		a, err := w.Append(ctx, "T", record.KindAssessment,
			[]byte(`{"subject":"cache","question":"which?","materiality":"trivial","reversibility":"reversible"}`))
		if err != nil {
			t.Fatal(err)
		}
		// A conclusion whose body is JSON but not a conclusion's (its
		// assessment is a number): Standing reads it when the next
		// assessment is admitted.
		head, _, err := store.Load(ctx, "T")
		if err != nil {
			t.Fatal(err)
		}
		bad := &record.Record{ID: "01J0000000000000000000000Z", Kind: record.KindConclusion, Task: "T",
			Created: "2026-12-01T05:00:00.000Z", Actor: w.Actor, Origin: w.Origin, Clock: a.Clock + 1,
			Body: []byte(`{"assessment":5}`), Derived: []byte(`{}`)}
		if head, err = store.Append(ctx, "T", head, bad); err != nil {
			t.Fatal(err)
		}
		_, err = w.Append(ctx, "T", record.KindAssessment,
			[]byte(`{"subject":"cache","question":"again?","materiality":"trivial","reversibility":"reversible"}`))
		if err == nil {
			t.Fatalf("%s store: an assessment was admitted on a task holding a record that does not decode", name)
		}
		errs[name] = err.Error()
		if now, _, _ := store.Load(ctx, "T"); now != head {
			t.Errorf("%s store: the refused append moved the task to %s", name, now)
		}
	}
	if errs["plain"] != errs["vouching"] {
		t.Errorf("derived lazily the refusal is\n%s\nDerive's is\n%s", errs["vouching"], errs["plain"])
	}
}
