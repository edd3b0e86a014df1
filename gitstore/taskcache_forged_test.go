package gitstore_test

import (
	"bytes"
	"context"
	"hash/crc32"
	"os"
	"strconv"
	"testing"

	"git-reason/reliability/harness"
)

// TestTaskCacheForged: .git/reason/tasks/<task>.records keeps a task's
// records by blob id so that a read does not go to git for them. A record
// whose text a stranger edits there (the subject, here; a conclusion's
// decision or a consultation's stance alike), every segment framed again
// with a good checksum, must not be read as the record: log and handover
// showed it. Without a MAC on the segments the edited text is read and
// this test fails.
func TestTaskCacheForged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := newRepo(t)
	assessTrivially(t, indexedWriter(openStore(t, dir), "Cache"), "T", "Session store")
	if _, _, err := openStore(t, dir).Load(ctx, "T"); err != nil {
		t.Fatal(err)
	}
	path := taskCachePath(dir)
	data := harness.ReadFile(t, path)
	// Each segment: a line ending "<sum> <size>", then size bytes.
	var forged []byte
	for rest := data; len(rest) > 0; {
		line, next, _ := bytes.Cut(rest, []byte{'\n'})
		f := bytes.Fields(line)
		n, err := strconv.Atoi(string(f[len(f)-1]))
		if err != nil || n > len(next) {
			t.Fatalf("segment line %q", line)
		}
		body := bytes.ReplaceAll(next[:n:n], []byte("Session store"), []byte("Session XXXXX"))
		f[len(f)-2] = []byte(strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 16))
		forged = append(append(append(forged, bytes.Join(f, []byte{' '})...), '\n'), body...)
		rest = next[n:]
	}
	if !bytes.Contains(forged, []byte("Session XXXXX")) {
		t.Fatalf("the forgery changed nothing:\n%s", data)
	}
	if err := os.WriteFile(path, forged, 0o600); err != nil {
		t.Fatal(err)
	}
	_, recs, err := openStore(t, dir).Load(ctx, "T")
	if err != nil || len(recs) != 1 {
		t.Fatalf("Load: %d records, %v", len(recs), err)
	}
	if bytes.Contains(recs[0].Body, []byte("XXXXX")) {
		t.Errorf("the edited cache was read as the record: %s", recs[0].Body)
	}
}
