package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ldhub/ldhub/atomicfile"
)

// A transaction makes durable only the objects it wrote, each with fsync, and the folders that name them, instead of
// syncObjects' syncfs: that flushes every dirty page of the whole file system, which on a hub is mostly the
// pipeline's renderings (about 1 GB per version of a 1 M-triple publication, written seconds before). In
// make bench-upload it held the upload's answer 0.6 s after the commit was written, waiting for the previous
// version's dumps to reach the disk. Pushes and mirrors, which write packs, still use syncObjects.

// txObjects lists the objects a commit of changes (slash paths; nil deletes) over the tree root wrote: the commit,
// every tree on a changed path, and every changed blob.
func (r *Repo) txObjects(commit, root plumbing.Hash, changes map[string]*[]byte) ([]plumbing.Hash, error) {
	out := []plumbing.Hash{commit}
	trees := map[string]plumbing.Hash{"": root} // tree path -> hash, those already listed
	if !root.IsZero() {
		out = append(out, root)
	}
	for p, c := range changes {
		dir, at := "", root
		parts := strings.Split(p, "/")
		for i, name := range parts {
			if at.IsZero() {
				break // the path was deleted with its folder
			}
			t, err := object.GetTree(r.objs, at)
			if err != nil {
				return nil, fmt.Errorf("gitrepo: tree %s in %s: %w", at, r.dir, err)
			}
			var next plumbing.Hash
			var mode filemode.FileMode
			for _, e := range t.Entries {
				if e.Name == name {
					next, mode = e.Hash, e.Mode
					break
				}
			}
			if i == len(parts)-1 {
				if c != nil && !next.IsZero() && mode != filemode.Dir {
					out = append(out, next)
				}
				break
			}
			dir = dir + "/" + name
			if mode != filemode.Dir {
				next = plumbing.ZeroHash
			}
			if _, seen := trees[dir]; !seen && !next.IsZero() {
				trees[dir] = next
				out = append(out, next)
			}
			at = next
		}
	}
	return out, nil
}

// syncTx makes the loose objects hs durable: each file, then each folder holding one, then objects/ (which may have
// got a new folder). An object not stored loose is in a pack, which was made durable when it was written.
func (r *Repo) syncTx(hs []plumbing.Hash) error {
	if r.NoSync {
		return nil
	}
	dirs := map[string]bool{}
	for _, h := range hs {
		p := r.loosePath(h)
		if err := atomicfile.Sync(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("gitrepo: sync %s: %w", p, err)
		}
		dirs[filepath.Dir(p)] = true
	}
	dirs[filepath.Join(r.dir, "objects")] = true
	for d := range dirs {
		if err := atomicfile.Sync(d); err != nil {
			return fmt.Errorf("gitrepo: sync %s: %w", d, err)
		}
	}
	return nil
}
