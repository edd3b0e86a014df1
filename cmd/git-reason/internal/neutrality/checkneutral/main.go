// Command checkneutral runs the neutrality engine over one repository as a
// whole process, the way `git reason check neutrality` will, so that
// bench/neutrality can time it against `git grep` on equal terms. It lives
// here because the engine is internal to cmd/git-reason. Names come from a
// file of "name<TAB>declared as" lines instead of the declarations.
//
// Exit status: 0 no violation, 1 failure, 2 bad usage or configuration,
// 3 violations found.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"git-reason/cmd/git-reason/internal/neutrality"
)

func main() {
	dir := flag.String("C", ".", "repository work tree root")
	termsFile := flag.String("terms", "", `file of "name<TAB>declared as" lines`)
	staged := flag.Bool("staged", false, "check the index")
	rng := flag.String("range", "", "check the files changed in A..B, as at B")
	workers := flag.Int("workers", 0, "files scanned at once (0: GOMAXPROCS, at least 2)")
	flag.Parse()
	os.Exit(run(*dir, *termsFile, *staged, *rng, *workers, flag.Args()))
}

func run(dir, termsFile string, staged bool, rng string, workers int, paths []string) int {
	terms, err := readTerms(termsFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkneutral:", err)
		return 2
	}
	cfg, _, err := neutrality.LoadConfig(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkneutral:", err)
		return 2
	}
	res, err := neutrality.Check(context.Background(), neutrality.Request{
		Root: dir, Paths: paths, Staged: staged, Range: rng, Config: cfg, Terms: terms, Workers: workers,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkneutral:", err)
		if errors.Is(err, neutrality.ErrInvalidRequest) {
			return 2
		}
		return 1
	}
	if err := neutrality.FormatText(os.Stdout, res.Violations); err != nil {
		fmt.Fprintln(os.Stderr, "checkneutral:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "checkneutral:", res.Summary())
	if len(res.Violations) > 0 {
		return 3
	}
	return 0
}

func readTerms(name string) ([]neutrality.Term, error) {
	if name == "" {
		return nil, errors.New("-terms is required")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	defer f.Close()
	var terms []neutrality.Term
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			name, as, _ := strings.Cut(line, "\t")
			terms = append(terms, neutrality.Term{Name: name, DeclaredAs: as})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read terms: %w", err)
	}
	return terms, nil
}
