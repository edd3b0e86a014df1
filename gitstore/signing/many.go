package signing

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// headsPerProcess bounds the commit ids one git log is given on its
// command line (41 bytes each), well inside the system's limit.
const headsPerProcess = 10000

// VerifyHeads is Verify of each of heads, whole, in one git log per
// 10,000 heads instead of one per head: every task's signatures for
// `verify` of every task. Each check goes to the head it was reached from
// (git log --source), newest first as Verify lists them. A commit that
// several heads reach goes to one of them only, so a head whose list is
// not closed under parents (a history sharing commits with another) is
// asked alone, with Verify.
func VerifyHeads(ctx context.Context, git Runner, allowedSigners string, heads []string) (map[string][]Check, error) {
	out := make(map[string][]Check, len(heads))
	parents := map[string][]string{}
	for start := 0; start < len(heads); start += headsPerProcess {
		chunk := heads[start:min(len(heads), start+headsPerProcess)]
		var args []string
		if allowedSigners != "" {
			args = append(args, "-c", "gpg.ssh.allowedSignersFile="+allowedSigners)
		}
		args = append(append(args, "log", "--source", format+"%P%x00%S%x00"), chunk...)
		data, err := git(ctx, append(args, "--")...)
		if err != nil {
			return nil, fmt.Errorf("check signatures: %w", err)
		}
		fields := bytes.Split(data, []byte{0})
		for len(fields) >= 10 {
			f := make([]string, 10)
			for i := range f {
				f[i] = string(fields[i])
			}
			fields = fields[10:]
			f[0] = strings.TrimSpace(f[0])
			out[f[9]] = append(out[f[9]], judge(f[:8]))
			parents[f[0]] = strings.Fields(f[8])
		}
	}
	for _, h := range heads {
		if cs := out[h]; len(cs) == 0 || cs[0].Commit != h || !closed(cs, parents) {
			cs, err := Verify(ctx, git, allowedSigners, h)
			if err != nil {
				return nil, err
			}
			out[h] = cs
		}
	}
	return out, nil
}

// closed reports whether every parent of every check's commit is among
// the checks.
func closed(cs []Check, parents map[string][]string) bool {
	in := make(map[string]bool, len(cs))
	for _, c := range cs {
		in[c.Commit] = true
	}
	for _, c := range cs {
		for _, p := range parents[c.Commit] {
			if !in[p] {
				return false
			}
		}
	}
	return true
}
