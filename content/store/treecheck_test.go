package store

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/ldhub/ldhub/content/model"
)

var entrySeeds = []string{"core.ttl", "..", ".", "../../othergroup/repo/pub.ttl", ".git", ".GIT. ", "git~1", ".ld",
	".LD", "a\x00b", "caf\u00e9.txt", "cafe\u0301.txt", ".g\u200cit", "sub/x.ttl", `..\x`, "", "Core.ttl", ".gitignore",
	"files", ".hidden.ttl", "x.meta.json"}

// FuzzTreeEntryName: a name a pushed tree may hold is one plain segment below its folder, never git's or the
// site's own, and never one a case- or normalisation-folding file system takes for core.ttl beside it.
func FuzzTreeEntryName(f *testing.F) {
	for _, s := range entrySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		tree := &object.Tree{Entries: []object.TreeEntry{
			{Name: "core.ttl", Mode: filemode.Regular, Hash: plumbing.NewHash("01")},
			{Name: name, Mode: filemode.Regular, Hash: plumbing.NewHash("02")},
		}}
		tree.Hash = plumbing.NewHash("03")
		err := checkTrees(memory.NewStorage(), tree, map[plumbing.Hash]int{})
		if err != nil {
			return
		}
		const root = "/srv/site/public/g/r"
		for _, j := range []string{path.Join(root, name), filepath.Join(root, name)} {
			if path.Dir(j) != root || path.Base(j) != name {
				t.Errorf("accepted %q lands at %q, not one level below %s", name, j, root)
			}
		}
		if strings.ContainsAny(name, "/\\\x00") {
			t.Errorf("accepted %q holding a separator or NUL", name)
		}
		switch reservedName(name) {
		case ".git", "git~1", ".ld":
			t.Errorf("accepted reserved %q", name)
		}
		if foldName(name) == "core.ttl" {
			t.Errorf("accepted %q beside core.ttl", name)
		}
	})
}

// FuzzPublishedPath: a path the site may serve stays inside the repository's folder, is clean, and each of its
// segments is a name a tree may hold.
func FuzzPublishedPath(f *testing.F) {
	for _, s := range entrySeeds {
		f.Add(s)
		f.Add("sub/" + s)
		f.Add(s + "/core.ttl")
	}
	f.Fuzz(func(t *testing.T, p string) {
		if checkPublishedPath(p) != nil {
			return
		}
		if path.Clean(p) != p || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
			t.Errorf("accepted unclean path %q", p)
		}
		const root = "/srv/site/public/g/r"
		if j := filepath.Join(root, p); !strings.HasPrefix(j, root+"/") {
			t.Errorf("accepted %q lands at %q, outside %s", p, j, root)
		}
		if len(p) > model.MaxPathLen {
			t.Errorf("accepted a path of %d bytes, over model.MaxPathLen", len(p))
		}
		for _, seg := range strings.Split(p, "/") {
			if err := checkEntryName(seg); err != nil {
				t.Errorf("accepted %q whose segment %q a tree may not hold: %v", p, seg, err)
			}
			if strings.HasPrefix(seg, ".") {
				t.Errorf("accepted %q with a hidden segment %q", p, seg)
			}
		}
	})
}

// TestPublishedPathLength: a path of model.MaxPathLen bytes is published, one byte more is refused with its length.
func TestPublishedPathLength(t *testing.T) {
	at := strings.Repeat(strings.Repeat("a", 63)+"/", 7) + strings.Repeat("b", model.MaxPathLen-7*64-4) + ".ttl"
	if len(at) != model.MaxPathLen {
		t.Fatalf("test path is %d bytes", len(at))
	}
	if err := checkPublishedPath(at); err != nil {
		t.Errorf("a path of %d bytes: %v", len(at), err)
	}
	over := "c" + at
	if err := checkPublishedPath(over); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the path is %d bytes, more than the limit of %d", len(over), model.MaxPathLen)) {
		t.Errorf("a path of %d bytes: %v", len(over), err)
	}
}
