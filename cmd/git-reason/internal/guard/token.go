package guard

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Token returns the bearer token a server requires: the value of the
// variable envVar when it is set, else the token kept in path (see
// LoadOrCreateToken). note, when not empty, is the line that tells the user
// where the token is kept and how to read it, never the token itself;
// clients names who sends it. A token shorter than MinTokenLength is
// refused, from the variable as from the file.
func Token(envVar, path, clients string) (token, note string, err error) {
	if token = os.Getenv(envVar); token != "" {
		if len(token) < MinTokenLength {
			return "", "", fmt.Errorf("$%s holds a token of %d characters: give one of at least %d (or unset it, and a token is generated in %s)",
				envVar, len(token), MinTokenLength, path)
		}
		return token, "", nil
	}
	token, created, err := LoadOrCreateToken(path)
	if errors.Is(err, fs.ErrPermission) {
		if _, lerr := os.Lstat(path); lerr == nil {
			// Another user's (the file is kept per repository, its
			// mode 0600): a teammate who served first in a shared one.
			return "", "", fmt.Errorf("the token file %s is not readable by you (another user's, who served here first?): set %s to a token of your own (%d characters at least) and serve again, or remove the file if it is yours to replace (a new one is generated)",
				path, envVar, MinTokenLength)
		}
	}
	if err != nil {
		return "", "", err
	}
	verb := "kept"
	if created {
		verb = "generated"
	}
	return token, fmt.Sprintf("token %s in %s: %s send it as 'Authorization: Bearer <token>' (read it with: cat %s), or set %s to choose one",
		verb, path, clients, path, envVar), nil
}

// MinTokenLength is the fewest characters a token may have, whether a
// variable or a file gives it: one any client could guess opens the
// server to anyone. A generated token has 64.
const MinTokenLength = 16

// LoadOrCreateToken returns the token kept in path, creating it (32 random
// bytes, hex) with mode 0600 in a 0700 directory when it does not exist.
// A token file that others may read, or that is not a regular file, is
// refused: the token is what stands between any local process and the
// user's advisors.
func LoadOrCreateToken(path string) (token string, created bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return create(path)
	}
	if err != nil {
		// Not followed (noFollow): the open fails with "too many levels of
		// symbolic links", which says neither what is wrong nor what to do.
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", false, fmt.Errorf("the token file %s is a symbolic link, not a regular file: remove it and serve again", path)
		}
		return "", false, fmt.Errorf("read the token file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("the token file %s is not a regular file: remove it and serve again", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("the token file %s may be read by others (mode %v): run 'chmod 600 %s' or remove it", path, fi.Mode().Perm(), path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", false, err
	}
	token = strings.TrimSpace(string(data))
	if len(token) < MinTokenLength {
		return "", false, fmt.Errorf("the token file %s holds no usable token: remove it and serve again", path)
	}
	return token, false, nil
}

func create(path string) (string, bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, fmt.Errorf("create the token file: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", false, err
	}
	token := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("create the token file: %w", err)
	}
	_, werr := f.WriteString(token + "\n")
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		os.Remove(path)
		return "", false, fmt.Errorf("write the token file: %w", err)
	}
	return token, true, nil
}
