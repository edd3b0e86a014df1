package ops

import (
	"context"

	"git-reason/cmd/git-reason/internal/settings"
	"git-reason/gitstore/git"
	"git-reason/gitstore/signing"
	"git-reason/record"
)

// errUnsignedRefused is a local write refused by reason.requireSigned=all;
// to the MCP tools, setting configuration is the person's step.
var errUnsignedRefused = git.ConfigErrorf("%w: reason.requireSigned is all and this write would not be signed: turn signing on (git config reason.sign true, with gpg.format and user.signingKey) or relax the rule (git config reason.requireSigned fetched)", record.ErrRefused)

// setSigner gives the store the user's signer when commit.gpgSign (or
// reason.sign) asks for one, and refuses an unsigned write under
// reason.requireSigned=all. actor is the committer of every record.
func (e *Session) setSigner(st *settings.Settings, actor string) error {
	sg := st.Signing
	if !sg.Sign {
		if sg.RequireSigned == settings.RequireAll {
			return errUnsignedRefused
		}
		return nil
	}
	signer := &signing.Signer{Format: sg.Format, Program: sg.Program, Key: sg.Key,
		KeyCommand: sg.DefaultKeyCommand, Committer: actor, Home: sg.Home}
	e.Store.Sign = func(payload []byte) ([]byte, error) {
		return signer.Sign(context.Background(), payload)
	}
	return nil
}

// signMerge signs a merge commit a sync worker's store writes with the
// session's signer, which Identify (run by the merge's Merger before the
// commit is written) sets.
func (e *Session) signMerge(payload []byte) ([]byte, error) {
	if e.Store.Sign == nil {
		return nil, nil
	}
	return e.Store.Sign(payload)
}
