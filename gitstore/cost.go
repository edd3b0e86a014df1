package gitstore

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"git-reason/gitstore/git"
	"git-reason/record"
	"git-reason/schemas"
)

// CostEnv names a file to which each git reason process appends, as it
// exits, one JSON line of what it read (Cost). Tests hold a command's cost
// to what changed with these counts, which do not depend on timing
// (reliability.TestScaleCounts); nothing else reads them.
const CostEnv = "GIT_REASON_COST"

// Cost is what one process read, of what grows with the history.
type Cost struct {
	// Args are the process's arguments after the program name.
	Args []string `json:"args"`
	// Histories is how many histories were read commit by commit (a
	// replay: verification, integration of a fetched task).
	Histories int64 `json:"histories"`
	// Tasks is how many times a task's records were read at a head (from
	// its cache file or from git), and Records how many records that was.
	Tasks   int64 `json:"tasks"`
	Records int64 `json:"records"`
	// SharedBytes is how many bytes were read of files that hold an entry
	// for every task (packed-refs and the caches under .git/reason/ that
	// have a line or entry per task); SharedFiles how many such reads.
	SharedBytes int64 `json:"shared_bytes"`
	SharedFiles int64 `json:"shared_files"`
	// Blobs is how many record blobs were read from git (a replay's, a
	// task read at a head its cache lacks); Memos how many read surfaces'
	// memos served a head (memo.go).
	Blobs int64 `json:"blobs"`
	Memos int64 `json:"memos"`
	// SearchBlocks is how many tasks' blocks of the search index a query
	// read (their bytes count in SharedBytes), and Postings how many
	// entries of the index's terms it read.
	SearchBlocks int64 `json:"search_blocks"`
	Postings     int64 `json:"postings"`
	// Decodes is how many records were decoded (record.Decodes): their
	// body and derived fields parsed into typed values.
	Decodes int64 `json:"decodes"`
	// PackIndexBytes is how many bytes of pack indexes go-git decoded
	// (each whole, the first time a Store reads an object from its pack;
	// packreads.go).
	PackIndexBytes int64 `json:"pack_index_bytes"`
	// RefsListed is how many refs listings across a namespace returned
	// (ListRefs: the task refs, the tracking refs), loose and packed.
	RefsListed int64 `json:"refs_listed"`
	// RefReads is how many refs were read one by one (ReadRef: the
	// loose file opened, then packed-refs searched; a listing's loose
	// files count too): what a command reads of a few tasks' refs, where
	// the refs of every task are listed (RefsListed).
	RefReads int64 `json:"ref_reads"`
	// SignatureBytes is how many bytes of the signature logs were read
	// and written (siglog.go): a status of a moved head reads the end of
	// its task's log and appends the checks of what is new.
	SignatureBytes int64 `json:"signature_bytes"`
	// Schemas is how many schema documents were compiled
	// (record.SchemaCompiles): a replay of a record this build's writer
	// validated compiles none (checked.go).
	Schemas int64 `json:"schemas"`
	// CheckedBytes is how many bytes of the lists of blobs the writer
	// validated were read (checked.go): a file's end, whatever the
	// task's size.
	CheckedBytes int64 `json:"checked_bytes"`
	// RememberedFiles is how many task files of the remembered
	// verifications (verified.d/) were read: a verification of every task
	// with nothing moved reads their bulk form (verified.all) instead.
	RememberedFiles int64 `json:"remembered_files"`
	// WrittenBytes is how many bytes were written to the caches that
	// hold an entry per task (the journals: appended, or rewritten whole).
	WrittenBytes int64 `json:"written_bytes"`
	// TreeEntries is how many entries of records/ trees were parsed
	// (tree.go's one tree reader; those a tree shares with the one read
	// before it are not parsed again): a status after one new record
	// parses the new head's tree once.
	TreeEntries int64 `json:"tree_entries"`
	// EntryDecodes is how many entries of the journals of every task's
	// status and handover (status.journal, handover.journal, ...) were
	// decoded from JSON.
	EntryDecodes int64 `json:"entry_decodes"`
	// OutputBytes is how many bytes of --json output were decoded and
	// held to their published schema (schemas.Output.Check): the parts of
	// a large output its memo (outputs.go) did not know.
	OutputBytes int64 `json:"output_bytes"`
	// Allocs is how many heap objects the process allocated
	// (runtime.MemStats.Mallocs), its start included: what a status
	// allocates per record of the task is the difference between two
	// tasks' counts.
	Allocs uint64 `json:"allocs"`
	// CatFileRounds is how many requests were sent to git cat-file
	// processes (git.Rounds): each asks for any number of objects in one
	// round trip, so a read of many objects level by level costs a few
	// where one object at a time costs two an object.
	CatFileRounds int64 `json:"cat_file_rounds"`
	// GitProcesses is how many git processes it started (git.Processes),
	// discovery and git config --list too.
	GitProcesses int64 `json:"git_processes"`
	// ReadCalls and ReadBytes are how many read system calls the process
	// made and the bytes they returned, of any file or pipe, as the
	// kernel counts them (syscr and rchar of /proc/self/io; 0 where
	// there is none): what the counters above do not see, a listing of
	// loose ref files for one, shows here.
	ReadCalls int64 `json:"read_calls"`
	ReadBytes int64 `json:"read_bytes"`
}

var costs struct {
	histories, tasks, records, sigBytes, rememberedFiles, sharedBytes, sharedFiles, blobs, memos, written, searchBlocks, postings, packIndex, refsListed, refReads, checked, entryDecodes, treeEntries atomic.Int64
}

func countBlob() { costs.blobs.Add(1) }
func countMemo() { costs.memos.Add(1) }

func countChecked(n int) { costs.checked.Add(int64(n)) }

func countRememberedFile() { costs.rememberedFiles.Add(1) }

func countSigBytes(n int) { costs.sigBytes.Add(int64(n)) }

func countHistory()          { costs.histories.Add(1) }
func countTask(records int)  { costs.tasks.Add(1); costs.records.Add(int64(records)) }
func countShared(n int)      { costs.sharedFiles.Add(1); costs.sharedBytes.Add(int64(n)) }
func countPackIndex(n int64) { costs.packIndex.Add(n) }
func countRefsListed(n int)  { costs.refsListed.Add(int64(n)) }
func countRefRead()          { costs.refReads.Add(1) }

func countSearchBlock(n int) { costs.searchBlocks.Add(1); costs.sharedBytes.Add(int64(n)) }
func countPostings(n int)    { costs.postings.Add(int64(n)) }
func countEntryDecode()      { costs.entryDecodes.Add(1) }
func countTreeEntries(n int) { costs.treeEntries.Add(int64(n)) }

// CountWritten counts n bytes written to a file that holds an entry per
// task (Cost.WrittenBytes).
func CountWritten(n int) { costs.written.Add(int64(n)) }

// ReadShared reads a file that holds an entry per task, counting it
// (Cost.SharedBytes).
func ReadShared(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		countShared(len(data))
	}
	return data, err
}

// WriteCost appends this process's Cost, with args, to the file CostEnv
// names, when it names one. A cost that cannot be written is lost: it is
// for tests, and they find it missing.
func WriteCost(args []string) {
	path := os.Getenv(CostEnv)
	if path == "" {
		return
	}
	c := Cost{Args: args, Histories: costs.histories.Load(), Tasks: costs.tasks.Load(), Records: costs.records.Load(),
		SharedBytes: costs.sharedBytes.Load(), SharedFiles: costs.sharedFiles.Load(), Blobs: costs.blobs.Load(), Memos: costs.memos.Load(),
		WrittenBytes: costs.written.Load(), Decodes: record.Decodes(), SearchBlocks: costs.searchBlocks.Load(), Postings: costs.postings.Load(),
		PackIndexBytes: costs.packIndex.Load(), RefsListed: costs.refsListed.Load(), RefReads: costs.refReads.Load(), SignatureBytes: costs.sigBytes.Load(),
		Schemas: record.SchemaCompiles(), CheckedBytes: costs.checked.Load(), EntryDecodes: costs.entryDecodes.Load(), RememberedFiles: costs.rememberedFiles.Load(), TreeEntries: costs.treeEntries.Load(), OutputBytes: schemas.OutputBytes()}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	c.Allocs = m.Mallocs
	c.CatFileRounds = git.Rounds()
	c.GitProcesses = git.Processes()
	c.ReadCalls, c.ReadBytes = processReads()
	line, err := json.Marshal(c)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// processReads returns syscr and rchar of /proc/self/io (0, 0 when it
// does not read).
func processReads() (calls, bytes int64) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		name, v, _ := strings.Cut(l, ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch name {
		case "syscr":
			calls = n
		case "rchar":
			bytes = n
		}
	}
	return calls, bytes
}
