package settings

import (
	"context"
	"os"

	"git-reason/gitstore"
	rungit "git-reason/gitstore/git"
)

// Early is a `git config --list` started where repository discovery runs,
// beside it rather than after it: a command's two git processes then take
// the wall time of one. Git finds the repository again by the same rules
// (working directory, GIT_DIR, GIT_CEILING_DIRECTORIES), so what it lists
// is what Load with the discovered git directory lists; only a
// repository git refuses (safe.directory) differs, and then discovery
// fails and the listing is never used.
type Early struct {
	done  chan struct{}
	items []item
	err   error
}

// StartEarly starts listing the configuration as git sees it from dir;
// the process is started when it returns, so that discovery's starts
// after it, not before.
func StartEarly(dir string) *Early {
	e := &Early{done: make(chan struct{})}
	wait, err := rungit.Cmd{Dir: dir, Args: listArgs, Unset: []string{"GIT_CONFIG"}}.Start(context.Background())
	if err != nil {
		e.err = err
		close(e.done)
		return e
	}
	go func() {
		defer close(e.done)
		out, err := wait()
		if err == nil {
			e.items, err = parseList(out)
		}
		e.err = err
	}()
	return e
}

// Wait waits for the listing to end, for a caller that does not use it.
func (e *Early) Wait() { <-e.done }

// Load is the package's Load for gitDir, the git directory discovery
// found, from what the early listing read. A listing that failed is run
// again as Load runs it (git's message then names the files as Load's
// does). A reading loaded from it is for one command: it watches no file,
// so Changed is false; a long-running process uses Load.
func (e *Early) Load(ctx context.Context, gitDir string, flags Flags) (*Settings, error) {
	<-e.done
	if e.err != nil {
		return Load(ctx, gitDir, flags)
	}
	return resolveItems(source{config: toConfig(e.items), lookupEnv: os.LookupEnv}, e.items, flags)
}

// SharedRepository is core.sharedRepository from what the early listing
// read, waiting for it, without resolving the rest: what a read creates
// under the git directory is shared from it (git.ShareLater) before the
// settings are wanted, or though they never are. A listing that failed
// says the default; Load then reports it.
func (e *Early) SharedRepository() gitstore.SharedPerm {
	<-e.done
	perm := gitstore.SharedUmask
	for _, it := range e.items {
		if it.key == keyShared {
			perm = gitstore.ParseSharedRepository(it.value, it.hasValue)
		}
	}
	return perm
}
