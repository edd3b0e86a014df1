package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"git-reason/reliability/harness"
)

const twoAdvisorsOverlay = `advisors:
  - {id: adv-aaaa, transport: cli, adapter: exec, executable: fake-aaaa, command: [fake-aaaa], capabilities: [reasoning]}
  - {id: adv-bbbb, transport: cli, adapter: exec, executable: fake-bbbb, command: [fake-bbbb], capabilities: [reasoning]}
`

// TestMCPSettingsCoarseTimes: the MCP server reads the settings again
// when a file they came from changed, which it sees by the file's
// identity, size and time. A file system that keeps times to the second
// (ext4 with 128-byte inodes, ext3, HFS+; FAT to two) gives a file
// written in place, to the same size, in the second the server read it,
// the same time as before. Here .git/config's reason.disable is changed
// so, from adv-bbbb to adv-aaaa, and its time set back to the second it
// had, as such a file system keeps it: once that file system's tick is
// over, the advisors tool must say that adv-aaaa is disabled (a plan
// would otherwise select it, and a consultation send it the question),
// never go on saying what the file said before.
func TestMCPSettingsCoarseTimes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, twoAdvisorsOverlay, map[string]string{"fake-aaaa": "cat\n", "fake-bbbb": "cat\n"})
	s.git("config", "reason.disable", "adv-bbbb")
	cfg := filepath.Join(s.dir, ".git", "config")
	r := startHostMCP(t, s)
	status := func() map[string]string {
		t.Helper()
		var res struct {
			StructuredContent struct {
				Advisors []struct{ ID, Status string }
			}
		}
		raw := r.call(t, "tools/call", map[string]any{"name": "advisors", "arguments": map[string]any{}})
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("advisors: %v\n%s", err, raw)
		}
		out := map[string]string{}
		for _, a := range res.StructuredContent.Advisors {
			if a.ID == "adv-aaaa" || a.ID == "adv-bbbb" {
				out[a.ID] = a.Status
			}
		}
		return out
	}
	if st := status(); st["adv-aaaa"] != "available" || st["adv-bbbb"] != "disabled" {
		t.Fatalf("before the change: %v, want adv-aaaa available and adv-bbbb disabled", st)
	}
	// Nothing has written .git/config since the setup (reading writes no
	// origin); the server has read it. The second the file system keeps of its last write: over 100 ms
	// ago, under two seconds ago. The server sees the file's time move
	// and reads the settings again at that time.
	second := time.Now().Add(-500 * time.Millisecond).Truncate(time.Second)
	if err := os.Chtimes(cfg, second, second); err != nil {
		t.Fatal(err)
	}
	if st := status(); st["adv-aaaa"] != "available" || st["adv-bbbb"] != "disabled" {
		t.Fatalf("before the change, read again: %v, want adv-aaaa available and adv-bbbb disabled", st)
	}
	if time.Since(second) >= 2*time.Second {
		t.Skip("the machine took two seconds to read the settings again: their time was settled when read")
	}
	// Written in place (the same file), to the same size.
	data := harness.ReadFile(t, cfg)
	changed := bytes.Replace(data, []byte("disable = adv-bbbb"), []byte("disable = adv-aaaa"), 1)
	if bytes.Equal(changed, data) {
		t.Fatalf(".git/config holds no reason.disable of adv-bbbb:\n%s", data)
	}
	f, err := os.OpenFile(cfg, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(changed); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(cfg, second, second); err != nil {
		t.Fatal(err)
	}
	// Once such a file system's tick is surely over, the server reads
	// the file again.
	time.Sleep(time.Until(second.Add(2500 * time.Millisecond)))
	if st := status(); st["adv-aaaa"] != "disabled" || st["adv-bbbb"] != "available" {
		t.Errorf("after reason.disable changed to adv-aaaa: %v, want adv-aaaa disabled and adv-bbbb available", st)
	}
}
