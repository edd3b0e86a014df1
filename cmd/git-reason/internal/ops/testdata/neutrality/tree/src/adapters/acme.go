package adapters

// This adapter may name Acme Cloud: it is excluded.
type AcmeCloud struct{ zeta int }
