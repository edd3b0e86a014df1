package main

import (
	"bytes"
	"hash/crc32"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdJournalEdit is "journaledit FILE OLD NEW": it replaces OLD by NEW in
// the data of every entry of FILE, a journal of .git/reason/ (a magic
// line, then entries of "task head crc32 length" and the data), and
// writes each entry's checksum and length anew, as someone who knows the
// format but not the repository's key would: what is left to refuse the
// edit is the MAC the entries carry. It fails when no entry held OLD.
func cmdJournalEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: journaledit FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	magic, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		ts.Fatalf("%s: no magic line", args[0])
	}
	out := append(append([]byte{}, magic...), '\n')
	edited := 0
	for len(rest) > 0 {
		line, next, ok := bytes.Cut(rest, []byte{'\n'})
		f := bytes.Fields(line)
		if !ok || len(f) != 4 {
			ts.Fatalf("%s: an entry's line does not read: %q", args[0], line)
		}
		n, err := strconv.Atoi(string(f[3]))
		if err != nil || n >= len(next) {
			ts.Fatalf("%s: an entry's length does not read: %q", args[0], line)
		}
		body := bytes.ReplaceAll(next[:n], []byte(args[1]), []byte(args[2]))
		if !bytes.Equal(body, next[:n]) {
			edited++
		}
		out = append(out, f[0]...)
		out = append(append(out, ' '), f[1]...)
		out = strconv.AppendUint(append(out, ' '), uint64(crc32.ChecksumIEEE(body)), 16)
		out = strconv.AppendInt(append(out, ' '), int64(len(body)), 10)
		out = append(append(append(out, '\n'), body...), '\n')
		rest = next[n+1:]
	}
	if edited == 0 {
		ts.Fatalf("%s: no entry holds %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, out, 0o644))
}
