package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// mainPackages are the programs under test, built side by side as README's
// install command installs them: git-reason, and NetProgram, which
// git-reason runs for the network verbs.
var mainPackages = []string{"git-reason/cmd/git-reason", "git-reason/cmd/git-reason--net"}

// NetProgram is the program git-reason runs the network verbs in; it must
// be beside git-reason.
const NetProgram = "git-reason--net"

// InstallTags are the build tags of README's install command (.ci/run
// sets no GOFLAGS: it relies on this build): the tests run the program a
// user installs. Without
// them the binary links urfave/cli's Markdown man-page generator and the C
// library's resolver and loader, and every one of the some 1,500 starts of
// git-reason in one go test -short ./... run costs more (README's install
// section).
const InstallTags = "urfave_cli_no_docs,netgo"

// buildTags is the -tags argument of the build and of go list: InstallTags,
// unless GOFLAGS names tags of its own, which then win (as they would for
// any go command run without -tags).
func buildTags() []string {
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if f == "-tags" || f == "--tags" || strings.HasPrefix(f, "-tags=") || strings.HasPrefix(f, "--tags=") {
			return nil
		}
	}
	return []string{"-tags", InstallTags}
}

var build struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of a git-reason binary built from this module's
// current source. The first call builds it (or finds the build of an
// earlier package of the same run); later calls return the same path.
func Binary() (string, error) {
	build.once.Do(func() {
		if build.path, build.err = buildBinary(); build.err == nil {
			build.err = logRaces(build.path)
		}
	})
	return build.path, build.err
}

// BinDir returns the directory holding Binary's git-reason, to be put
// first on PATH so that `git reason` runs it; it fails the test when the
// binary cannot be built.
func BinDir(tb testing.TB) string {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		tb.Fatalf("build git-reason: %v", err)
	}
	return filepath.Dir(bin)
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func buildBinary() (string, error) {
	key, err := inputsKey()
	if err != nil {
		// Without a key nothing can be shared safely: build privately.
		return buildPrivate()
	}
	root, err := cacheRoot()
	if err != nil {
		return buildPrivate()
	}
	dir := filepath.Join(root, key)
	bin := filepath.Join(dir, "git-reason")
	unlock, err := lockFile(filepath.Join(root, key+".lock"))
	if err != nil {
		return buildPrivate()
	}
	defer unlock()
	if regular(bin) && regular(filepath.Join(dir, NetProgram)) {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // in use: keep it from being swept
		return bin, nil
	}
	sweep(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := goBuild(tmp); err != nil {
		return "", err
	}
	// A source edited while go build ran: what was built may hold the
	// edit or not, and must not be kept under the key of the sources as
	// they were before it. This process builds for itself instead.
	if after, err := inputsKey(); err != nil || after != key {
		return buildPrivate()
	}
	for _, name := range []string{NetProgram, "git-reason"} {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// buildPrivate builds into a directory of this process alone, removed by
// nobody: in the cache's directory, where sweep takes it once unused, or
// where there is none in the temporary directory, whose cleaner takes it
// (a memory file system has none).
func buildPrivate() (string, error) {
	parent, err := cacheRoot()
	if err != nil {
		parent = ""
	}
	dir, err := os.MkdirTemp(parent, "git-reason-bin-")
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "git-reason"), goBuild(dir)
}

// goBuild builds every program of mainPackages into dir, in one go build.
func goBuild(dir string) error {
	args := append(append([]string{"build", "-o", dir + string(filepath.Separator)}, buildTags()...), mainPackages...)
	cmd := exec.Command(goTool(), args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(mainPackages, " "), err, stderr.Bytes())
	}
	return nil
}

// cacheRoot is this user's directory of builds, in the memory directory
// MemoryTemp uses where there is one (whether or not this package's tests
// point TMPDIR at it), else in os.TempDir(). It must be a directory owned
// by the user and writable by no one else: a binary someone else could
// replace would run in every test.
func cacheRoot() (string, error) {
	tmp := memoryDir()
	if tmp == "" {
		tmp = os.TempDir()
	}
	root := filepath.Join(tmp, fmt.Sprintf("git-reason-testbin-%d", os.Getuid()))
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) {
		return "", fmt.Errorf("%s is not a private directory of this user", root)
	}
	return root, nil
}

// sweep removes builds not used for a day, so that a long edit-test cycle
// does not fill the temporary directory with binaries; on the memory file
// system, whose files are the machine's memory, those not used for two
// hours (longer than a go test run's deadline, 30 minutes in .ci/run and
// bench/tests/run.sh).
func sweep(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	unused := 24 * time.Hour
	if m := memoryDir(); m != "" && filepath.Dir(root) == m {
		unused = 2 * time.Hour
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err == nil && e.IsDir() && time.Since(fi.ModTime()) > unused {
			os.RemoveAll(filepath.Join(root, e.Name()))
			os.Remove(filepath.Join(root, e.Name()+".lock"))
		}
	}
}

// inputsKey hashes what the build reads: the toolchain and the variables
// that change its output, the module's go.mod and go.sum, and every Go,
// assembly and embedded file of the module's packages the binary depends
// on (packages of other modules are pinned by go.sum).
func inputsKey() (string, error) {
	args := append([]string{"list", "-deps"}, buildTags()...)
	cmd := exec.Command(goTool(), append(args, "-f",
		"{{if .Module}}{{if .Module.Main}}{{.Dir}}\t{{.Module.GoMod}}\t{{join .GoFiles \" \"}} {{join .CgoFiles \" \"}} {{join .SFiles \" \"}} {{join .EmbedFiles \" \"}}{{end}}{{end}}",
	)...)
	cmd.Args = append(cmd.Args, mainPackages...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %v: %s", err, stderr.Bytes())
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s/%s %q\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, buildTags())
	// The values go build uses, from the environment or go env -w's
	// file: GOFLAGS=-race in either builds another binary, which must
	// not share the key of the build without it.
	vars := []string{"GOFLAGS", "CGO_ENABLED", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "GOEXPERIMENT", "GOTOOLCHAIN", "GOROOT", "CC"}
	env, err := exec.Command(goTool(), append([]string{"env"}, vars...)...).Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	fmt.Fprintf(h, "%q\n%s\n", vars, env)
	var goMod string
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		dir, rest, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		mod, files, _ := strings.Cut(rest, "\t")
		goMod = mod
		for _, f := range strings.Fields(files) {
			if err := hashFile(h, filepath.Join(dir, f)); err != nil {
				return "", err
			}
		}
	}
	if goMod == "" {
		return "", errors.New("go list named no package of this module")
	}
	for _, f := range []string{goMod, strings.TrimSuffix(goMod, ".mod") + ".sum"} {
		if err := hashFile(h, f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "%s\n", path)
	_, err = io.Copy(h, f)
	fmt.Fprintln(h)
	return err
}

// Install puts Binary's git-reason and NetProgram into dir (made when
// missing), replacing any there, for a program that puts dir first on
// PATH: the benchmarks run the build the tests run, built once for both.
// Each is a hard link where the file system allows one, else a copy.
func Install(dir string) error {
	bin, err := Binary()
	if err != nil {
		return fmt.Errorf("build git-reason: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{NetProgram, "git-reason"} {
		if err := place(filepath.Join(filepath.Dir(bin), name), filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// InstalledWorkDir is WorkDir with the binary under test installed
// (Install) in its directory bin, which it returns: a program that puts
// bin first on PATH runs that build.
func InstalledWorkDir(keep, prefix string) (dir, bin string, remove func(), err error) {
	dir, remove, err = WorkDir(keep, prefix)
	if err != nil {
		return "", "", nil, err
	}
	bin = filepath.Join(dir, "bin")
	if err := Install(bin); err != nil {
		remove()
		return "", "", nil, err
	}
	return dir, bin, remove, nil
}

// PlaceBinary puts Binary's git-reason alone at dst (no NetProgram beside
// it), as place does, for a test that runs it from a directory of its own.
func PlaceBinary(dst string) error {
	bin, err := Binary()
	if err != nil {
		return fmt.Errorf("build git-reason: %w", err)
	}
	return place(bin, dst)
}

// place makes dst a hard link to src, else a copy of it made by cp. The
// copy is another process's so that no file descriptor open for writing
// it is ever this process's: a test running in parallel that forks while
// one is open hands it to its child until that child execs, and running
// dst then fails with "text file busy" (ETXTBSY).
func place(src, dst string) error {
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	if out, err := exec.Command("cp", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp %s %s: %v: %s", src, dst, err, bytes.TrimSpace(out))
	}
	return os.Chmod(dst, 0o755)
}

// regular reports whether path is a regular file.
func regular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
