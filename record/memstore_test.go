package record_test

import (
	"testing"

	"git-reason/record"
	"git-reason/record/storetest"
)

func TestMemStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) record.Store { return record.NewMemStore() })
}

func TestMemStoreUnderFaults(t *testing.T) {
	storetest.RunFaults(t, func(*testing.T) record.Store { return record.NewMemStore() })
}
