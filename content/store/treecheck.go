package store

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"golang.org/x/text/unicode/norm"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/history"
)

// A pushed tree is checked entry by entry, at every depth, before anything reads a path out of it: git itself
// stores any bytes as a name (git hash-object --literally, git mktree), and the site renders a publication at its
// path, so a name holding "/" or ".." would reach another repository's folder.

// maxTreeDepth bounds how deep folders nest in a pushed tree. Deeper trees were "internal error" (go-git's tree
// walker stops at 1024 levels); a published path is bounded by model.MaxPathLen anyway, and 128 levels leave room
// for any real layout of files.
const maxTreeDepth = 128

// checkTrees checks tree and every tree below it that is not in done, adding each to done with its height (how
// many levels of folders it holds), so that a tree checked once is not read again and still counts at its depth.
func checkTrees(objs storer.EncodedObjectStorer, t *object.Tree, done map[plumbing.Hash]int) error {
	_, err := checkTree(objs, t, "", 0, done)
	return err
}

// checkTree checks t, found at dir (depth folders below the root), and returns its height.
func checkTree(objs storer.EncodedObjectStorer, t *object.Tree, dir string, depth int, done map[plumbing.Hash]int) (int, error) {
	if h, ok := done[t.Hash]; ok {
		if depth+h > maxTreeDepth {
			return 0, model.Invalidf("tree entry %q: folders nest more than %d levels deep", strings.TrimSuffix(dir, "/"), maxTreeDepth)
		}
		return h, nil
	}
	height := 0
	folded := make(map[string]string, len(t.Entries))
	for _, e := range t.Entries {
		p := dir + e.Name
		if err := checkEntryName(e.Name); err != nil {
			return 0, model.Invalidf("tree entry %q: %v", p, err)
		}
		// Two names one file system takes for the same (macOS and Windows clients fold case and Unicode forms)
		// would check out as one file, and the second would overwrite the first.
		key := foldName(e.Name)
		if other, clash := folded[key]; clash {
			return 0, model.Invalidf("tree entry %q: differs from %q only by case or Unicode normalisation", p, dir+other)
		}
		folded[key] = e.Name
		switch e.Mode {
		case filemode.Regular, filemode.Executable:
		case filemode.Dir:
			if depth+1 > maxTreeDepth {
				return 0, model.Invalidf("tree entry %q: folders nest more than %d levels deep", p, maxTreeDepth)
			}
			sub, err := object.GetTree(objs, e.Hash)
			if err != nil {
				return 0, model.Invalidf("tree entry %q: tree %s is missing", p, e.Hash)
			}
			h, err := checkTree(objs, sub, p+"/", depth+1, done)
			if err != nil {
				return 0, err
			}
			height = max(height, h+1)
		case filemode.Symlink:
			return 0, model.Invalidf("tree entry %q: symbolic links are refused (ldhub publishes files, push the file itself)", p)
		case filemode.Submodule:
			return 0, model.Invalidf("tree entry %q: submodules are refused (ldhub cannot fetch another repository's content)", p)
		default:
			return 0, model.Invalidf("tree entry %q: mode %o is not a file or a folder", p, uint32(e.Mode))
		}
	}
	done[t.Hash] = height
	return height, nil
}

// checkEntryName refuses a name that is not one plain path segment, or that git, the site tree or a client's file
// system treats specially.
func checkEntryName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty name")
	case name == "." || name == "..":
		return fmt.Errorf("%q is not a name", name)
	case strings.ContainsAny(name, "/\\"):
		return fmt.Errorf("a name may not hold a slash or backslash")
	case !utf8.ValidString(name):
		return fmt.Errorf("the name is not UTF-8")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("a name may not hold control characters")
		}
	}
	switch reservedName(name) {
	case ".git", "git~1":
		return fmt.Errorf("the name is reserved by git")
	case ".ld":
		return fmt.Errorf("the name is reserved by the site (.ld holds its rendered files)")
	}
	return nil
}

// reservedName is name as the file systems git protects against see it: case folded, without the code points
// HFS+ ignores, and without the trailing dots and spaces NTFS drops.
func reservedName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if hfsIgnorable(r) {
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), ". ")
}

// hfsIgnorable reports the code points HFS+ drops from names (the list git's fsck uses).
func hfsIgnorable(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

func foldName(name string) string {
	return strings.ToLower(norm.NFC.String(name))
}

// checkPublishedPath refuses a published path (a publication, a file, a sidecar) whose segments are not URL path
// segments the API would accept; the site serves it at that path.
func checkPublishedPath(p string) error {
	if seg, bad := history.BadSegment(p); bad {
		return &model.ContentError{Path: p, Err: fmt.Errorf("segment %q must be 1-64 characters of [A-Za-z0-9._-], not starting with '.', to be published", seg)}
	}
	if len(p) > model.MaxPathLen {
		return &model.ContentError{Path: p[:60] + "…", Err: fmt.Errorf("the path is %d bytes, more than the limit of %d to be published (the site stores it along its URL path)", len(p), model.MaxPathLen)}
	}
	return nil
}
