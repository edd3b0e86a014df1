package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// FileAt is one path as a commit holds it.
type FileAt struct {
	Path string
	// Kind is "file", "symlink" (Data is the link's target), "submodule"
	// or "" when the commit has no such path; only a file's Data is read.
	Kind string
	Size int64
	// Data is the content, nil when Size is over the limit asked for.
	Data []byte
	// PastTotal: not read, since those before it reached the total asked
	// for.
	PastTotal bool
}

// FilesAt reads paths as commit holds them, with one git ls-tree and one
// git cat-file: content larger than limit bytes is not read (Data nil),
// nor, in the order of paths, a file after those whose content reaches
// total bytes. Paths are taken literally, relative to the top
// of the tree; a path that names a directory or nothing comes back with
// Kind "".
func (r *Repo) FilesAt(ctx context.Context, commit string, paths []string, limit, total int64) ([]FileAt, error) {
	out := make([]FileAt, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	args := []string{"ls-tree", "-z", "-l", "--full-tree", "--end-of-options", commit, "--"}
	for i, p := range paths {
		out[i].Path = p
		args = append(args, ":(literal)"+p)
	}
	listed, err := r.Git(ctx, args...)
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	for i, p := range paths {
		at[p] = i
	}
	var read []string
	var readAt []int
	oids := make([]string, len(paths))
	for _, ent := range bytes.Split(listed, []byte{0}) {
		// <mode> SP <type> SP <object> SP+ <size> TAB <path>
		meta, path, ok := strings.Cut(string(ent), "\t")
		f := strings.Fields(meta)
		i, named := at[path]
		if !ok || len(f) != 4 || !named {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		switch f[0] {
		case "100644", "100755":
			out[i].Kind, out[i].Size = "file", size
		case "120000":
			out[i].Kind, out[i].Size = "symlink", size
		case "160000":
			out[i].Kind = "submodule"
			continue
		default:
			continue
		}
		oids[i] = f[2]
	}
	for i := range out { // in the order of paths, as ls-tree's is its own
		switch f := out[i]; {
		case f.Kind == "" || f.Kind == "submodule" || f.Size > limit:
		case total <= 0:
			out[i].PastTotal = true
		default:
			total -= f.Size
			read, readAt = append(read, oids[i]), append(readAt, i)
		}
	}
	if len(read) == 0 {
		return out, nil
	}
	cf, err := r.catFile(ctx)
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	err = cf.Contents(read, func(i int, typ string, data []byte) error {
		if typ != "blob" {
			return fmt.Errorf("%s is a %s, not a blob", read[i], typ)
		}
		out[readAt[i]].Data = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
