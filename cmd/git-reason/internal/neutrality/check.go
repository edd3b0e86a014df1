package neutrality

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// DefaultMaxFileSize is the size above which a file is not checked unless
// the request sets another limit: larger files are generated or vendored
// far more often than written.
const DefaultMaxFileSize = 4 << 20

// binaryProbe is how many leading bytes are searched for a NUL, as git does.
const binaryProbe = 8000

// ErrInvalidRequest is wrapped by the errors Check returns for a request
// that cannot be run as given (a usage error, not a failure).
var ErrInvalidRequest = errors.New("invalid request")

// Request says what to check and against which names.
type Request struct {
	// Root is the top directory of the work tree; Check asks git for it
	// when it is empty.
	Root string
	// Dir is the directory Paths are relative to, usually the caller's
	// working directory; Root when empty.
	Dir string
	// Paths are git pathspecs limiting the files checked; none means the
	// whole tree, wherever Dir is.
	Paths []string
	// Staged checks the blobs in the index instead of the work tree.
	Staged bool
	// Range, "A..B" or "A...B", checks the files added or modified in the
	// range, as they are at B. To check every file of a commit B, use the
	// empty tree as A. It cannot be combined with Staged.
	Range string
	// Config decides which files are neutral; nil means the repository is
	// not configured, and nothing is checked.
	Config *Config
	// Terms are the declared names. The configuration's terms are added to
	// them with DeclaredAs ConfigTermsDeclaredAs.
	Terms []Term
	// Workers bounds how many files are read and scanned at once; zero
	// means GOMAXPROCS, and at least 2.
	Workers int
	// MaxFileSize is the largest file checked; zero means
	// DefaultMaxFileSize.
	MaxFileSize int64
}

// Violation is one occurrence of a name in a neutral file.
type Violation struct {
	Path       string `json:"path"`        // slash-separated, from the repository root
	Line       int    `json:"line"`        // 1-based
	Col        int    `json:"col"`         // 1-based byte column
	Name       string `json:"name"`        // the term as declared
	DeclaredAs string `json:"declared_as"` // where the term was declared
	Text       string `json:"text"`        // the occurrence as spelled in the file
}

// Skipped is a file that could not be checked.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Result is the outcome of a check. The check passes when Violations is
// empty, including when the repository is not configured.
type Result struct {
	Configured bool        `json:"configured"`
	Violations []Violation `json:"violations"` // sorted by path, line, column
	Files      int         `json:"files"`      // files scanned
	Allowed    int         `json:"allowed"`    // occurrences accepted by allow entries
	Binary     int         `json:"binary"`     // binary files not scanned
	Skipped    []Skipped   `json:"skipped"`    // files too large or unreadable, by path
}

// Check finds the violations the request asks for. It returns an error
// wrapping ErrInvalidRequest for a bad request, a plain error for a bad
// Config (see ParseConfig for errors with lines) or when git fails.
func Check(ctx context.Context, req Request) (*Result, error) {
	if req.Config == nil {
		return &Result{Violations: []Violation{}, Skipped: []Skipped{}}, nil
	}
	if err := req.validate(); err != nil {
		return nil, err
	}
	r, err := req.Config.compile()
	if err != nil {
		return nil, fmt.Errorf("neutrality configuration: %w", err)
	}
	m, err := NewMatcher(append(append([]Term(nil), req.Terms...), r.terms...))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	if err := req.findRoot(ctx); err != nil {
		return nil, err
	}
	s := &scan{matcher: m, rules: r, max: req.MaxFileSize}
	if s.max <= 0 {
		s.max = DefaultMaxFileSize
	}
	if req.Staged || req.Range != "" {
		var es []entry
		if req.Staged {
			es, err = listIndex(ctx, req.gitDir(), req.Paths)
		} else {
			es, err = listRange(ctx, req.gitDir(), req.Range, req.Paths)
		}
		if err != nil {
			return nil, err
		}
		kept := es[:0]
		for _, e := range es {
			if r.checks(e.path) {
				kept = append(kept, e)
			}
		}
		err = s.blobs(ctx, req.Root, kept, req.workers())
	} else {
		err = s.files(ctx, req.Root, req.workers(), func(emit func(entry) error) error {
			return listWorkTree(ctx, req.gitDir(), req.Paths, func(e entry) error {
				if !r.checks(e.path) {
					return nil
				}
				return emit(e)
			})
		})
	}
	if err != nil {
		return nil, err
	}
	return s.result(), nil
}

// findRoot asks git for the root of the work tree when the request does not
// give it.
func (req *Request) findRoot(ctx context.Context) error {
	if req.Root != "" {
		return nil
	}
	out, err := git(ctx, req.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("find work tree: %w", err)
	}
	req.Root = strings.TrimSpace(string(out))
	return nil
}

// gitDir is where git runs to list files: Dir when there are paths to
// resolve against it, else the root, since no path means the whole tree.
func (req *Request) gitDir() string {
	if len(req.Paths) > 0 && req.Dir != "" {
		return req.Dir
	}
	return req.Root
}

func (req *Request) validate() error {
	if req.Staged && req.Range != "" {
		return fmt.Errorf("%w: staged and range cannot be combined", ErrInvalidRequest)
	}
	if req.Range != "" && (!strings.Contains(req.Range, "..") || strings.HasPrefix(req.Range, "-")) {
		return fmt.Errorf("%w: range %q is not of the form A..B", ErrInvalidRequest, req.Range)
	}
	return nil
}

func (req *Request) workers() int {
	if req.Workers > 0 {
		return req.Workers
	}
	return max(2, runtime.GOMAXPROCS(0))
}

// scan collects what the workers find.
type scan struct {
	matcher *Matcher
	rules   *rules
	max     int64

	mu  sync.Mutex
	res Result
}

// tally is one worker's share of a result, merged once at its end.
type tally struct {
	violations []Violation
	files      int
	allowed    int
	binary     int
	skipped    []Skipped
}

// files reads and scans work tree files with a pool of workers, while list
// is still emitting them. Paths go to the workers in batches: a channel
// operation per file costs more than reading a small one.
func (s *scan) files(ctx context.Context, root string, workers int, list func(emit func(entry) error) error) error {
	const batch = 32
	jobs := make(chan []entry, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var t tally
			var buf []byte
			for es := range jobs {
				for _, e := range es {
					var data []byte
					var why string
					data, buf, why = readFile(filepath.Join(root, filepath.FromSlash(e.path)), buf, s.max)
					switch {
					case why != "":
						t.skipped = append(t.skipped, Skipped{e.path, why})
					case data != nil:
						s.file(&t, e.path, data)
					}
				}
			}
			s.merge(&t)
		})
	}
	pending := make([]entry, 0, batch)
	send := func() error {
		select {
		case jobs <- pending:
			pending = make([]entry, 0, batch)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := list(func(e entry) error {
		if pending = append(pending, e); len(pending) == batch {
			return send()
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = send()
	}
	close(jobs)
	wg.Wait()
	return err
}

// blobs reads blobs with one git process and scans them with a pool of
// workers.
func (s *scan) blobs(ctx context.Context, root string, es []entry, workers int) error {
	if len(es) == 0 {
		return nil
	}
	type job struct {
		path string
		data []byte
	}
	jobs := make(chan job, workers)
	pool := sync.Pool{}
	get := func(n int) []byte {
		if b, ok := pool.Get().(*[]byte); ok && cap(*b) >= n {
			return (*b)[:n]
		}
		return make([]byte, n, max(n, 64<<10))
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var t tally
			for j := range jobs {
				s.file(&t, j.path, j.data)
				pool.Put(&j.data)
			}
			s.merge(&t)
		})
	}
	var big []Skipped
	err := readBlobs(ctx, root, es, s.max, get, func(e entry, data []byte, size int64) error {
		if data == nil {
			big = append(big, Skipped{e.path, fmt.Sprintf("larger than %d bytes", s.max)})
			return nil
		}
		select {
		case jobs <- job{e.path, data}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	s.merge(&tally{skipped: big})
	return err
}

// file scans one file's contents into t.
func (s *scan) file(t *tally, path string, data []byte) {
	if bytes.IndexByte(data[:min(len(data), binaryProbe)], 0) >= 0 {
		t.binary++
		return
	}
	t.files++
	for _, m := range s.matcher.Find(data) {
		if len(s.rules.allow) > 0 && s.rules.allowed(path, lineAt(data, m.Offset)) {
			t.allowed++
			continue
		}
		t.violations = append(t.violations, Violation{
			Path: path, Line: m.Line, Col: m.Col,
			Name: m.Term.Name, DeclaredAs: m.Term.DeclaredAs, Text: m.Text,
		})
	}
}

// lineAt returns the line holding data[off], without its line ending.
func lineAt(data []byte, off int) []byte {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += off
	}
	return bytes.TrimSuffix(data[start:end], []byte("\r"))
}

func (s *scan) merge(t *tally) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Violations = append(s.res.Violations, t.violations...)
	s.res.Files += t.files
	s.res.Allowed += t.allowed
	s.res.Binary += t.binary
	s.res.Skipped = append(s.res.Skipped, t.skipped...)
}

func (s *scan) result() *Result {
	res := s.res
	res.Configured = true
	if res.Violations == nil {
		res.Violations = []Violation{}
	}
	if res.Skipped == nil {
		res.Skipped = []Skipped{}
	}
	sort.Slice(res.Violations, func(i, j int) bool {
		a, b := res.Violations[i], res.Violations[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	sort.Slice(res.Skipped, func(i, j int) bool { return res.Skipped[i].Path < res.Skipped[j].Path })
	return &res
}
