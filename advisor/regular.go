package advisor

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular is returned for a path that names a symbolic link, a FIFO,
// a device, a socket or a directory where a regular file is required. A
// repository's .reason/ files must be regular files, as git requires of
// .gitattributes: a symbolic link would make the tool read (and perhaps
// quote) a file outside the repository, a FIFO would block it forever.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file larger than the limit it is read with.
var ErrTooLarge = errors.New("file too large")

// MaxDeclarationBytes caps a declaration overlay.
const MaxDeclarationBytes = 1 << 20

// ReadRegular reads the regular file at path, at most limit bytes. It opens
// the file without blocking (a FIFO would otherwise block the open), and
// checks what it opened with fstat, so that what is read is what was
// checked. With follow false a symbolic link as the last component is
// refused rather than followed. A missing file wraps fs.ErrNotExist; a
// file that is not regular wraps ErrNotRegular; one past the limit wraps
// ErrTooLarge. Error messages name the path, never the content.
func ReadRegular(path string, limit int64, follow bool) ([]byte, error) {
	var data []byte
	err := readRegular(path, limit, follow, func(r io.Reader) (n int64, err error) {
		data, err = io.ReadAll(r)
		return int64(len(data)), err
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// SumRegular is the SHA-256, in hex, of the regular file at path, read as
// ReadRegular reads it but never held whole: a file of many megabytes
// costs its hashing, not its size in memory.
func SumRegular(path string, limit int64, follow bool) (string, error) {
	h := sha256.New()
	if err := readRegular(path, limit, follow, func(r io.Reader) (int64, error) { return io.Copy(h, r) }); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// readRegular opens path as ReadRegular says and gives read at most
// limit+1 bytes of it, which returns how many it took.
func readRegular(path string, limit int64, follow bool, read func(io.Reader) (int64, error)) error {
	f, err := openNonblocking(path, follow)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s is %d bytes, more than %d: %w", path, fi.Size(), limit, ErrTooLarge)
	}
	n, err := read(io.LimitReader(f, limit+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if n > limit {
		return fmt.Errorf("%s is more than %d bytes: %w", path, limit, ErrTooLarge)
	}
	return nil
}

// openError maps the open errors of a path that is a symbolic
// link (when not followed) to ErrNotRegular, and keeps fs.ErrNotExist.
func openError(path string, err error, isLink bool) error {
	if isLink {
		return fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	return err // *fs.PathError: errors.Is(err, fs.ErrNotExist) holds for a missing file
}

// readRepositoryOverlay reads a repository overlay: a regular file, not a
// symbolic link, in a .reason directory that is not one either. A missing
// file is nil data and no error.
func readRepositoryOverlay(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotRegular)
	}
	data, err := ReadRegular(path, MaxDeclarationBytes, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// overlayError turns a failure to read an overlay into the error Load
// returns: nil for a missing file, a *ParseError (bad input) for one that
// is not a regular file or is too large, naming the path and never the
// content.
func overlayError(path string, err error) error {
	switch {
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, ErrNotRegular):
		return &ParseError{File: path, Msg: "not a regular file (a symbolic link, FIFO, device or directory is refused): replace it with the file itself"}
	case errors.Is(err, ErrTooLarge):
		return &ParseError{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxDeclarationBytes)}
	}
	return fmt.Errorf("read overlay: %w", err)
}

// maxCoveredBytes bounds what one load reads of the files an overlay's
// commands name, all together: a stranger's overlay naming many large
// files must not make every command read them.
const maxCoveredBytes = 2 * MaxCommandFileBytes

// coverer finds the work-tree files commands name, the commands running
// in the work tree's top (realTop: top with symbolic links resolved),
// each path read once, at most maxCoveredBytes in all; named keeps, by
// advisor, every file its command names (listed first by it or not).
type coverer struct {
	top, realTop string
	seen         map[string]CoveredFile
	named        map[string][]CoveredFile
	left         int64
	// entries bounds the entries read of one directory (maxDirEntries).
	entries int
	// stat looks at what each file is (statProblem) without reading it:
	// no digest, no bytes counted (Sources.RepositoryRecorded).
	stat bool
	// tops are the names in the top, read once, in lower case (a file
	// system may ignore case): a path whose first element is none of
	// them names nothing there, with no Lstat (a script or code of many
	// words names few files).
	tops map[string]bool
	// What runners' files and scripts run in turn (indirect.go): each
	// runner's file read once (runs), followed once per advisor (done);
	// indirect counts down the names followed, read the runners' files
	// read; notes say, by path, what of what a file runs is not covered.
	runs     map[string]*runRead
	done     map[string]bool
	indirect int
	read     int
	scanned  int // scripts read for what they name above them (parents)
	notes    map[string][]string
	hidden   map[string]bool
	// looked counts the names file looks for: the work a load does.
	looked int
}

func newCoverer(top string) *coverer {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		realTop = top
	}
	return &coverer{top: top, realTop: realTop, seen: map[string]CoveredFile{}, named: map[string][]CoveredFile{}, left: maxCoveredBytes, entries: maxDirEntries,
		runs: map[string]*runRead{}, done: map[string]bool{}, indirect: maxIndirectNames, notes: map[string][]string{}, hidden: map[string]bool{}}
}

// files lists the work-tree files argv, advisor's command, names that
// were not listed before: the program when it is a path (with a
// separator), and every argument, value of an option given with "=" or
// attached to a short option, or word of a shell's -c script
// (commandNames), naming something there, relative to the top or
// absolute; and what these run in turn (command). A directory there is
// listed as one (its path ending in a slash: coverDir), the top itself
// not. What does not exist or lies outside the work tree is no file of
// it; what is a symbolic link, or lies under one, is listed with its
// problem, as is what cannot be read.
func (c *coverer) files(advisor string, argv []string) []CoveredFile {
	return c.noted(c.command(advisor, argv, 0, ""))
}

// argPaths is what argument i of a command may name as a path: the
// argument, the value of an option given as -name=value or --name=value
// (--config=tools/x.yaml) or of an assignment NAME=value (env
// PYTHONPATH=tools), and the text after a short option it is attached
// to (-ftools/x.awk, -Itools): whichever of these names something in the
// work tree is covered, so reading more of an argument than its program
// does only covers more. An option's value given as the next argument is
// an argument itself.
func argPaths(i int, a string) []string {
	out := []string{a}
	if i == 0 {
		return out
	}
	if k, v, ok := strings.Cut(a, "="); ok && v != "" && (strings.HasPrefix(k, "-") || isName(k)) {
		out = append(out, v)
	}
	if len(a) > 2 && a[0] == '-' && isLetter(a[1]) && a[2] != '=' {
		out = append(out, a[2:])
	}
	return out
}

// isName reports whether s is a shell variable's name.
func isName(s string) bool {
	for i := range len(s) {
		if c := s[i]; !isLetter(c) && c != '_' && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// file is what a, argument i of advisor's command, names in the work
// tree (a zero Path: nothing), and whether it was not listed before
// (files); via says what runs it when no word of the command names it
// (CoveredFile), dirs whether a directory counts.
func (c *coverer) file(advisor string, i int, a, via string, dirs bool) (CoveredFile, bool) {
	c.looked++
	if a == "" || (i == 0 && !strings.ContainsRune(a, '/') && !strings.ContainsRune(a, filepath.Separator)) {
		return CoveredFile{}, false // a program without a separator is looked up on PATH
	}
	p := a
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.top, p)
	}
	rel, err := filepath.Rel(c.top, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return CoveredFile{}, false
	}
	if c.tops == nil {
		c.tops = map[string]bool{}
		if d, err := os.Open(c.top); err == nil {
			names, _ := d.Readdirnames(-1)
			d.Close()
			for _, n := range names {
				c.tops[strings.ToLower(n)] = true
			}
		}
	}
	if first, _, _ := strings.Cut(rel, string(filepath.Separator)); !c.tops[strings.ToLower(first)] {
		return CoveredFile{}, false
	}
	f, seen := c.seen[rel]
	if !seen {
		fi, err := os.Lstat(p)
		if err != nil || (fi.IsDir() && !dirs) {
			return CoveredFile{}, false
		}
		f = c.cover(advisor, rel, fi)
		f.Via = via
		c.seen[rel] = f
	} else if !dirs && strings.HasSuffix(f.Path, "/") {
		return CoveredFile{}, false
	}
	c.named[advisor] = append(c.named[advisor], f)
	if seen && via == "" && c.hidden[f.Path] { // named by a command now (indirectFile)
		delete(c.hidden, f.Path)
		return f, true
	}
	return f, !seen
}

// cover reads the file (or directory) rel of the work tree, which
// Lstat says is fi.
func (c *coverer) cover(advisor, rel string, fi fs.FileInfo) CoveredFile {
	p := filepath.Join(c.top, rel)
	f := CoveredFile{Path: filepath.ToSlash(rel), Advisor: advisor}
	if fi.IsDir() {
		f.Path += "/"
	}
	switch real, err := filepath.EvalSymlinks(p); {
	case err != nil || real != filepath.Join(c.realTop, rel):
		f.Problem = "is a symbolic link or lies under one"
	case fi.IsDir():
		f.SHA256, f.Problem = c.coverDir(p)
	case c.stat:
		f.Problem = statProblem(fi)
	case fi.Size() > c.left && fi.Size() <= MaxCommandFileBytes:
		f.Problem = fmt.Sprintf("takes the files the commands name past the %d bytes git reason reads of them", maxCoveredBytes)
	default:
		c.left -= fi.Size()
		if f.SHA256, err = SumRegular(p, MaxCommandFileBytes, false); err != nil {
			f.Problem = fileProblem(err)
		}
	}
	return f
}

// maxDirEntries bounds the entries (files and directories) git reason
// reads of one directory a command names, all levels together.
const maxDirEntries = 10000

// coverDir is the digest of the directory p of the work tree, which a
// command names (python3 tools runs tools/__main__.py, make -C tools
// tools/Makefile): one SHA-256 over the path, relative to p, and the
// SHA-256 of every regular file under it, walked in sorted order, a
// nested .git skipped. What is under it counts in the bytes the
// coverer reads; a symbolic link, FIFO, device or socket under it, a
// file too large, or more than maxDirEntries entries, is a problem.
func (c *coverer) coverDir(p string) (sum, problem string) {
	h, n := sha256.New(), 0
	err := filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > c.entries {
			return fmt.Errorf("holds more than %d files and directories, which git reason reads at most of one", c.entries)
		}
		rel, _ := filepath.Rel(p, path)
		switch {
		case path != p && e.Name() == ".git" && e.IsDir():
			return filepath.SkipDir
		case path != p && e.Name() == "__pycache__" && e.IsDir():
			// Python writes it as it runs a module beside a script
			// (modules), and reads it only with the source beside it;
			// a repository's advisors run with PYTHONPYCACHEPREFIX
			// elsewhere (transport's exec), so it neither reads nor
			// writes a pulled one.
			return filepath.SkipDir
		case e.IsDir(), e.Name() == ".git":
			return nil
		case !e.Type().IsRegular():
			return fmt.Errorf("holds %s, which %s", filepath.ToSlash(rel), fileProblem(ErrNotRegular))
		}
		fi, err := e.Info()
		switch {
		case err != nil:
			return err
		case c.stat && statProblem(fi) != "":
			return fmt.Errorf("holds %s, which %s", filepath.ToSlash(rel), statProblem(fi))
		case c.stat:
			return nil
		}
		if fi.Size() > c.left && fi.Size() <= MaxCommandFileBytes {
			return fmt.Errorf("holds %s, which takes the files the commands name past the %d bytes git reason reads of them", filepath.ToSlash(rel), maxCoveredBytes)
		}
		c.left -= fi.Size()
		sum, err := SumRegular(path, MaxCommandFileBytes, false)
		if err != nil {
			return fmt.Errorf("holds %s, which %s", filepath.ToSlash(rel), fileProblem(err))
		}
		fmt.Fprintf(h, "%q %s\n", filepath.ToSlash(rel), sum)
		return nil
	})
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &pathErr):
		return "", "does not read"
	case err != nil:
		return "", err.Error()
	case c.stat:
		return "", ""
	}
	return fmt.Sprintf("%x", h.Sum(nil)), ""
}

// statProblem is fileProblem for a file Lstat says is fi, not read.
func statProblem(fi fs.FileInfo) string {
	switch {
	case !fi.Mode().IsRegular():
		return fileProblem(ErrNotRegular)
	case fi.Size() > MaxCommandFileBytes:
		return fileProblem(ErrTooLarge)
	}
	return ""
}

// coveredChange reads again, as Load read them, the work-tree files
// trust covered for d, and names the first whose content is not what
// was trusted (or that is gone), "" when none: the declarations may
// have loaded hours before the command runs (serve, mcp), and a pull
// in between must not run what was not trusted.
func coveredChange(d Declaration) string {
	if len(d.Covered) == 0 {
		return ""
	}
	c := newCoverer(d.Dir)
	for _, f := range d.Covered {
		rel := filepath.FromSlash(strings.TrimSuffix(f.Path, "/"))
		fi, err := os.Lstat(filepath.Join(d.Dir, rel))
		if err != nil {
			return f.Path
		}
		if now := c.cover(d.ID, rel, fi); now.Path != f.Path || now.SHA256 != f.SHA256 || now.Problem != f.Problem {
			return f.Path
		}
	}
	return ""
}

// fileProblem says why a covered file did not read.
func fileProblem(err error) string {
	switch {
	case errors.Is(err, ErrNotRegular):
		return "is not a regular file (a symbolic link, FIFO, device or socket)"
	case errors.Is(err, ErrTooLarge):
		return fmt.Sprintf("is larger than %d bytes", MaxCommandFileBytes)
	}
	return "does not read"
}
