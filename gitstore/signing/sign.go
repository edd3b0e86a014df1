package signing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"git-reason/gitstore/git"
)

// Signer signs commits as `git commit -S` would with the same settings.
type Signer struct {
	Format     string // "openpgp", "x509" or "ssh"
	Program    string // the format's program (gpg, gpgsm, ssh-keygen by default)
	Key        string // user.signingKey; "" for the format's default
	KeyCommand string // gpg.ssh.defaultKeyCommand
	// Committer is "Name <email>": the default key of openpgp and x509,
	// as git signs with the committer's identity when no key is set.
	Committer string
	// Home expands a "~/" ssh key path, as git's interpolate_path does.
	Home string
}

// ErrSign is a signer that failed; nothing was written.
var ErrSign = errors.New("signing failed")

// Sign returns the detached signature of payload, or an error matching
// ErrSign that says in one line what the signer said.
func (s *Signer) Sign(ctx context.Context, payload []byte) ([]byte, error) {
	var sig []byte
	var err error
	switch s.Format {
	case "ssh":
		sig, err = s.signSSH(ctx, payload)
	case "openpgp", "x509", "":
		sig, err = s.signGPG(ctx, payload)
	default:
		err = fmt.Errorf("unknown gpg.format %q", s.Format)
	}
	if err != nil {
		return nil, git.ConfigErrorf("%w: %v: check gpg.format, user.signingKey and the signing program, or turn signing off (git config reason.sign false)", ErrSign, err)
	}
	// As git does: a signature never carries a CR.
	return bytes.ReplaceAll(sig, []byte("\r"), nil), nil
}

func (s *Signer) program(def string) string {
	if s.Program != "" {
		return s.Program
	}
	return def
}

func (s *Signer) signGPG(ctx context.Context, payload []byte) ([]byte, error) {
	key := s.Key
	if key == "" {
		key = s.Committer
	}
	def := "gpg"
	if s.Format == "x509" {
		def = "gpgsm"
	}
	prog := s.program(def)
	cmd := exec.CommandContext(ctx, prog, "--status-fd=2", "-bsau", key)
	cmd.Stdin = bytes.NewReader(payload)
	var out, status bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &status
	err := cmd.Run()
	created := bytes.HasPrefix(status.Bytes(), []byte("[GNUPG:] SIG_CREATED ")) ||
		bytes.Contains(status.Bytes(), []byte("\n[GNUPG:] SIG_CREATED "))
	if err != nil || !created {
		return nil, fmt.Errorf("%s failed to sign the data with key %q (%s)", prog, key, git.LastLine(status.String(), errText(err)))
	}
	return out.Bytes(), nil
}

func (s *Signer) signSSH(ctx context.Context, payload []byte) ([]byte, error) {
	key := s.Key
	if key == "" {
		var err error
		if key, err = s.defaultSSHKey(ctx); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", ".git_signing_")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{"-Y", "sign", "-n", "git", "-f"}
	if literal, ok := literalSSHKey(key); ok {
		// Only the public half: ssh-keygen -U finds the private key in
		// the agent.
		keyFile := filepath.Join(dir, "key.pub")
		if err := os.WriteFile(keyFile, []byte(literal), 0o600); err != nil {
			return nil, err
		}
		args = append(args, keyFile, "-U")
	} else {
		if rest, ok := strings.CutPrefix(key, "~/"); ok && s.Home != "" {
			key = filepath.Join(s.Home, rest)
		}
		args = append(args, key)
	}
	buf := filepath.Join(dir, "buffer")
	if err := os.WriteFile(buf, payload, 0o600); err != nil {
		return nil, err
	}
	prog := s.program("ssh-keygen")
	cmd := exec.CommandContext(ctx, prog, append(args, buf)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if strings.Contains(stderr.String(), "usage:") {
			return nil, errors.New("ssh-keygen -Y sign is needed for ssh signing (OpenSSH 8.2p1 or later)")
		}
		return nil, fmt.Errorf("%s -Y sign: %s", prog, git.LastLine(stderr.String(), errText(err)))
	}
	return os.ReadFile(buf + ".sig")
}

// defaultSSHKey runs gpg.ssh.defaultKeyCommand (split into words, no
// shell, as git does) and takes its first line when it is a literal key.
func (s *Signer) defaultSSHKey(ctx context.Context) (string, error) {
	words := strings.Fields(s.KeyCommand)
	if len(words) == 0 {
		return "", errors.New("either user.signingKey or gpg.ssh.defaultKeyCommand needs to be configured")
	}
	cmd := exec.CommandContext(ctx, words[0], words[1:]...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("gpg.ssh.defaultKeyCommand failed: %s", git.LastLine(stderr.String(), errText(err)))
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if _, ok := literalSSHKey(first); !ok {
		return "", errors.New("gpg.ssh.defaultKeyCommand succeeded but returned no keys")
	}
	return first, nil
}

// literalSSHKey reports whether key is a public key written out rather
// than a path, as git's is_literal_ssh_key: "key::…", or "ssh-…".
func literalSSHKey(key string) (string, bool) {
	if rest, ok := strings.CutPrefix(key, "key::"); ok {
		return rest, true
	}
	return key, strings.HasPrefix(key, "ssh-")
}

func errText(err error) string {
	if err == nil {
		return "no signature was created"
	}
	return err.Error()
}
