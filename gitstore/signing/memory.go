package signing

import (
	"encoding/json"
	"os"
	"path/filepath"

	"git-reason/gitstore/git"
)

// Memory is what this clone saw signed by allowed signers: each key's
// fingerprint with its principal, in .git/reason/signers.json. A key it
// remembers that is no longer allowed was removed from the allowed
// signers, and a record it signed is shown as such (Removed), never as
// trusted and never as merely unknown. Losing the file loses only that
// distinction.
type Memory struct {
	Path string
}

// MemoryIn is the memory of the repository whose common git directory is
// commonDir.
func MemoryIn(commonDir string) Memory {
	return Memory{Path: filepath.Join(commonDir, "reason", "signers.json")}
}

// Apply remembers the keys of good checks and marks as Removed the
// unknown-key checks of keys remembered, in every group of checks given,
// reading the memory once; it saves what it learned (a save that fails
// only loses the memory).
func (m Memory) Apply(groups ...[]Check) {
	if m.Path == "" {
		return
	}
	known := map[string]string{}
	if data, err := os.ReadFile(m.Path); err == nil {
		_ = json.Unmarshal(data, &known) // a damaged memory remembers nothing
	}
	learned := false
	for _, checks := range groups {
		for i := range checks {
			c := &checks[i]
			switch {
			case c.Status == Good || c.Status == NotActor:
				if c.Key != "" && known[c.Key] != c.Signer {
					known[c.Key], learned = c.Signer, true
				}
			case c.Status == UnknownKey && c.Key != "" && known[c.Key] != "":
				c.Status, c.Signer = Removed, known[c.Key]
			}
		}
	}
	if !learned {
		return
	}
	data, err := json.MarshalIndent(known, "", "  ")
	if err != nil {
		return
	}
	_ = git.WriteFile(m.Path, data, 0o644, 0, false)
}
