package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"git-reason/gitstore"
	"git-reason/record"
)

// Fetched is a task's fetched head, to integrate.
type Fetched struct {
	Task string
	Head string
}

// workers bounds how many tasks IntegrateAll integrates at once.
const workers = 4

// IntegrateAll integrates the fetched tasks, several at once (tasks are
// independent: each has its own ref and compare-and-swap), each worker
// with a Store of its own (newStore) sharing g's Memo, so that no head is
// replayed twice. Results are in the order of fetched.
//
// A task may reuse a conclusion of another task that the same pull
// brings: its reuse is checked against that task's local ref, which the
// pull may create or move only after checking it. So a task quarantined
// for its reuses alone, when a task it reuses changed in the same round,
// is integrated again, until a round changes nothing such a task reuses.
// Tasks that then still wait on each other's reuses (a cycle) are
// integrated as one set, once (IntegrateTogether).
//
// Stopped (ctx ended: a server told to stop, a client that cancelled its
// call), it moves no more refs, and a wait for a ref's lock another
// process holds ends: the refs it moved stay, each moved whole, the rest
// are left for the next pull, and the error, which wraps ctx's, says so.
func (g *Integrator) IntegrateAll(ctx context.Context, fetched []Fetched, newStore func() *gitstore.Store) ([]*Integration, error) {
	before := g.memo().moved.Load()
	results, err := g.integrateAll(ctx, fetched, newStore)
	if err != nil && ctx.Err() != nil {
		if moved := g.memo().moved.Load() - before; moved > 0 {
			return nil, fmt.Errorf("the integration was stopped (%w) with %d task ref(s) moved, each whole, which stay: the rest are left for the next pull", ctx.Err(), moved)
		}
		return nil, fmt.Errorf("the integration was stopped (%w) before it moved a task ref: all are left for the next pull", ctx.Err())
	}
	return results, err
}

// integrateAll is IntegrateAll up to what a stop says.
func (g *Integrator) integrateAll(ctx context.Context, fetched []Fetched, newStore func() *gitstore.Store) ([]*Integration, error) {
	// The merge signature is read once, before any worker needs it.
	sig, sigErr := g.Merger()
	merger := func() (gitstore.Signature, error) {
		if sigErr != nil {
			return gitstore.Signature{}, sigErr
		}
		s := sig
		s.When = time.Now()
		return s, nil
	}
	results := make([]*Integration, len(fetched))
	pending := make([]int, len(fetched))
	heads := make([]string, len(fetched))
	for i, f := range fetched {
		pending[i], heads[i] = i, f.Head
	}
	// What the replay of a head several tasks name does for all of them
	// is done once (gitstore.Shared.Expect); nothing is held of the others.
	g.memo().Expect(heads)
	together := false
	for len(pending) > 0 {
		if err := g.round(ctx, fetched, pending, merger, newStore, results); err != nil {
			return nil, err
		}
		changed := map[string]bool{}
		for _, i := range pending {
			if in := results[i]; in.Changed() && in.Outcome != OutcomeQuarantined {
				changed[in.Task] = true
			}
		}
		var again []int
		for _, i := range pending {
			in := results[i]
			if !reuseOnly(in) {
				continue
			}
			for _, u := range g.ReusedTasks(in.Task, in.Fetched) {
				if changed[u] {
					again = append(again, i)
					break
				}
			}
		}
		pending = again
		if len(pending) == 0 && !together {
			together = true
			if err := g.together(ctx, results); err != nil {
				return nil, err
			}
		}
	}
	// What was verified clean is remembered for the next verification;
	// failing to save it costs that one time, nothing else.
	_ = g.memo().Remembered.Save()
	return results, nil
}

// fatal reports whether err stops the whole integration rather than
// quarantining the one task it came from.
func (g *Integrator) fatal(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, gitstore.ErrLocked) || g.Fatal != nil && g.Fatal(err)
}

// together integrates, as one set, the tasks still quarantined for their
// reuses alone when some of them reuse others of them: tasks that wait on
// each other (A reuses B's conclusion and B reuses A's), so that no round
// puts one in place before the other (IntegrateTogether). Their results
// replace the rounds' ones.
func (g *Integrator) together(ctx context.Context, results []*Integration) error {
	set := map[string]string{}
	index := map[string]int{}
	for i, in := range results {
		if reuseOnly(in) {
			set[in.Task], index[in.Task] = in.Fetched, i
		}
	}
	waiting := false
	for t, head := range set {
		for _, u := range g.ReusedTasks(t, head) {
			if _, ok := set[u]; ok {
				waiting = true
			}
		}
	}
	if !waiting {
		return nil
	}
	ins, err := g.IntegrateTogether(ctx, set)
	if err != nil {
		if g.fatal(ctx, err) {
			return err
		}
		// A task that does not read: the set keeps what the rounds found
		// (quarantined for its reuses), as before it was tried.
		return nil
	}
	for _, in := range ins {
		results[index[in.Task]] = in
	}
	return nil
}

// round integrates fetched[i] for each i of todo into results[i]: the
// workers decide what each fetched head does to its local ref (verified,
// merged when it must be), then the refs that move, move together
// (commitAll).
func (g *Integrator) round(ctx context.Context, fetched []Fetched, todo []int,
	merger func() (gitstore.Signature, error), newStore func() *gitstore.Store, results []*Integration) error {
	worker := func() *Integrator {
		store := newStore()
		store.Share(&g.memo().Shared)
		return &Integrator{Store: store, Merger: merger, Memo: g.memo(), Fatal: g.Fatal, NoLockWait: g.NoLockWait}
	}
	errs := make([]error, len(fetched))
	preps := make([]*prepared, len(fetched))
	next := make(chan int)
	var wg sync.WaitGroup
	var done atomic.Int64 // tasks decided, for the progress shown
	g.Store.Progress("Verifying tasks", 0, len(todo))
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := worker()
			for i := range next {
				f := fetched[i]
				in, p, err := w.decide(ctx, f.Task, f.Head)
				if err != nil && !w.fatal(ctx, err) {
					// One task that does not read never stops the others.
					in, p, err = quarantine(newIntegration(f.Task, f.Head), CodeUnreadable, record.Printable(err.Error())), nil, nil
				}
				results[i], preps[i], errs[i] = in, p, err
				g.Store.Progress("Verifying tasks", int(done.Add(1)), len(todo))
			}
		}()
	}
	// Tasks naming one head are decided one after the other, so that what
	// the run holds of a head several tasks name (gitstore.Shared.Expect)
	// is let go once the last of them is replayed, not held while the
	// tasks between them in name order are.
	for _, i := range slices.SortedStableFunc(slices.Values(todo), func(a, b int) int {
		return strings.Compare(fetched[a].Head, fetched[b].Head)
	}) {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return g.commitAll(ctx, fetched, todo, preps, results, worker)
}

// commitAll moves the local refs of the tasks of todo that preps says
// move: all in one transaction (gitstore.Repo.UpdateRefs: one git
// process, all or none), or, for one ref or when the transaction failed
// (a ref moved meanwhile by a concurrent append, a lock held, a ref in
// the way), one by one by compare-and-swap, each task whose ref moved
// meanwhile decided again from its new head, as Integrate does.
func (g *Integrator) commitAll(ctx context.Context, fetched []Fetched, todo []int, preps []*prepared, results []*Integration, worker func() *Integrator) error {
	if err := ctx.Err(); err != nil {
		return err // stopped: nothing more moves
	}
	var batch []gitstore.RefUpdate
	var moving []int
	for _, i := range todo {
		if p := preps[i]; p != nil {
			batch = append(batch, gitstore.RefUpdate{Name: gitstore.TaskRef(fetched[i].Task), Old: p.local, New: p.next})
			moving = append(moving, i)
		}
	}
	if len(batch) > 1 && g.Store.Repo.UpdateRefs(ctx, batch) == nil {
		g.memo().moved.Add(int64(len(batch)))
		for _, i := range moving {
			results[i].Outcome, results[i].To = preps[i].outcome, preps[i].next
		}
		return nil
	}
	if len(moving) == 0 {
		return nil
	}
	w := worker()
	for _, i := range moving {
		done, err := w.commit(ctx, results[i], preps[i])
		if err == nil && !done {
			results[i], err = w.Integrate(ctx, fetched[i].Task, fetched[i].Head)
		}
		if err != nil {
			if w.fatal(ctx, err) {
				return err
			}
			results[i] = quarantine(newIntegration(fetched[i].Task, fetched[i].Head), CodeUnreadable, record.Printable(err.Error()))
		}
	}
	return nil
}
