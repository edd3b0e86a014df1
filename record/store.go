package record

import (
	"context"
	"sort"
	"sync"
)

// TaskHead is a task and the commit (or other opaque token) at its head.
type TaskHead struct {
	Task string `json:"task"`
	Head string `json:"head"`
}

// Store keeps each task's records as an append-only history. Implementations
// must be safe for concurrent use by many writers, in one process or many.
type Store interface {
	// Load returns the task's head and every record on it. A task that does
	// not exist has head "" and no records; that is not an error.
	Load(ctx context.Context, task string) (head string, recs []*Record, err error)
	// Append stores rec as the task's next record on top of head ("" for a
	// new task) and returns the new head. When the task's head is no longer
	// head it returns an error matching ErrConflict and changes nothing.
	Append(ctx context.Context, task, head string, rec *Record) (string, error)
	// Tasks lists every task with its head, sorted by task name.
	Tasks(ctx context.Context) ([]TaskHead, error)
}

// DecodingStore is a Store that vouches that every record its Load
// returns decodes (Decode succeeds): each passed ReadStored, or was written
// by the writer. The writer then decodes only the records an admission
// rule reads, not the whole task, before each append.
type DecodingStore interface {
	Store
	// RecordsDecode reports whether every record Load returns decodes.
	RecordsDecode() bool
}

// HeadStore is a Store that tells a task's head without reading its
// records: a writer that keeps each task's state (Writer.Keep) asks it
// first, and reads no record when it holds the state at that head.
type HeadStore interface {
	Store
	// Head returns the task's head, "" when the task does not exist: the
	// head Load would return now.
	Head(task string) (string, error)
}

// Index finds standing conclusions across every task, for reuse.
type Index interface {
	// Standing returns every standing conclusion whose assessment has the
	// subject key, from any task but skip, oldest first (by clock, then
	// task). A task whose history does not read is left out.
	Standing(ctx context.Context, subjectKey, skip string) ([]Standing, error)
}

// Voucher says whether a task's history may be trusted now: a standing
// conclusion is reused only from a task it vouches for.
type Voucher interface {
	// Clean returns nil when the task's history, at its head now, replays
	// clean through the admission rules, else an error saying why not.
	Clean(ctx context.Context, task string) error
}

// Authorship says whether the records a standing conclusion rests on were
// written by authors this clone trusts.
type Authorship interface {
	// AuthorsTrusted returns nil when the conclusion and every
	// consultation and local-review answer it weighed were written in this
	// clone or signed by an allowed signer; else an error naming the task
	// and the records that were not.
	AuthorsTrusted(ctx context.Context, task, conclusion string) error
}

// ScanIndex is an Index that derives every task from its store on each
// call. It is exact and simple; stores with many tasks provide a cached one.
type ScanIndex struct{ Store Store }

// Standing implements Index by loading every task; a task that does not
// load or derive is left out.
func (x ScanIndex) Standing(ctx context.Context, key, skip string) ([]Standing, error) {
	tasks, err := x.Store.Tasks(ctx)
	if err != nil {
		return nil, err
	}
	var out []Standing
	for _, t := range tasks {
		if t.Task == skip {
			continue
		}
		_, recs, err := x.Store.Load(ctx, t.Task)
		if err != nil {
			continue
		}
		st, err := Derive(t.Task, recs)
		if err != nil {
			continue
		}
		for _, s := range st.Standing() {
			if s.SubjectKey == key {
				out = append(out, s)
			}
		}
	}
	SortStanding(out)
	return out, nil
}

// SortStanding orders standing conclusions oldest first: by clock, then
// by task.
func SortStanding(s []Standing) {
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Clock != s[j].Clock {
			return s[i].Clock < s[j].Clock
		}
		return s[i].Task < s[j].Task
	})
}

// MemStore is an in-memory Store, for tests and for trying rules out.
type MemStore struct {
	mu    sync.Mutex
	tasks map[string][]*Record
}

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore { return &MemStore{tasks: map[string][]*Record{}} }

func memHead(recs []*Record) string {
	if len(recs) == 0 {
		return ""
	}
	return recs[len(recs)-1].ID
}

// Load implements Store.
func (m *MemStore) Load(_ context.Context, task string) (string, []*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	recs := m.tasks[task]
	return memHead(recs), append([]*Record(nil), recs...), nil
}

// Head implements HeadStore.
func (m *MemStore) Head(task string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return memHead(m.tasks[task]), nil
}

// Append implements Store; the head is the id of the task's last record.
func (m *MemStore) Append(_ context.Context, task, head string, rec *Record) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if memHead(m.tasks[task]) != head {
		return "", ErrConflict
	}
	cp := *rec
	m.tasks[task] = append(m.tasks[task], &cp)
	return rec.ID, nil
}

// Tasks implements Store.
func (m *MemStore) Tasks(context.Context) ([]TaskHead, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]TaskHead, 0, len(m.tasks))
	for t, recs := range m.tasks {
		out = append(out, TaskHead{Task: t, Head: memHead(recs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Task < out[j].Task })
	return out, nil
}
