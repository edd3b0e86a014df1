// Package signing signs record commits and judges their signatures the
// way git does, with the user's own programs and configuration.
//
// Signing follows git's gpg-interface: openpgp and x509 run the format's
// program as `PROGRAM --status-fd=2 -bsau KEY` with the commit on stdin
// and take its stdout once the status says SIG_CREATED; ssh runs
// `ssh-keygen -Y sign -n git -f KEYFILE [-U] FILE` on a temporary copy of
// the commit and reads FILE.sig. A key is never read here: a literal ssh
// public key ("key::ssh-…") is written to a temporary file for ssh-keygen
// to find its private half in an agent, as git does. The default key is
// the committer (openpgp, x509) or the first line printed by
// gpg.ssh.defaultKeyCommand (ssh).
//
// Verification asks git (Checker): `git log --no-walk` over the commits
// whose verdict is not kept (one process per 10,000 ids, perProcess)
// prints each commit's %G? status, key, signer and fingerprint, honouring
// gpg.ssh.allowedSignersFile (or a trusted .reason/allowed_signers given
// in its place), and judge turns each into a Status for the record the
// commit holds: good (by whom), unsigned, bad, unknown key, signer not
// the actor. An OpenPGP signature is by whom only through a user id gpg
// holds valid that names the actor (the key's trust, which git reports,
// is that of its best user id), an X.509 one through its subject's EMail
// attribute as gpgsm prints it. Verdicts keeps what git concluded per commit, for as long as
// what it judged by (allowed signers, ssh program and revocation file;
// the gpg or gpgsm keyring as its program lists it) is unchanged. One
// git cat-file reads the commits first: an unsigned one is told by its
// headers, with no program run, and a good ssh signature by a plain
// allowed-signers line is judged in this process (AllowedSSH), which only
// ever says good where git would and leaves every other case to git.
package signing
