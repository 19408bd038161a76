// Package gittest drives the git CLI for the store's tests: a fresh HOME per call (no ~/.gitconfig unless the test
// writes one there), and crafted objects that git's porcelain would never make (names holding "/" or "..",
// symlinks, submodules), built with `git hash-object --literally` as an attacker would.
package gittest

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Run runs git in dir with home as HOME and stdin as its input; it returns the combined output and the error, so
// that refusals can be checked.
func Run(t testing.TB, home, dir, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=cli", "GIT_AUTHOR_EMAIL=cli@example.org", "GIT_COMMITTER_NAME=cli", "GIT_COMMITTER_EMAIL=cli@example.org")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Must is Run that fails the test on an error.
func Must(t testing.TB, home, dir, stdin string, args ...string) string {
	t.Helper()
	out, err := Run(t, home, dir, stdin, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

// Entry is one entry of a crafted tree.
type Entry struct {
	Mode string // "100644", "40000", "120000", "160000"
	Name string
	Hash string // hex object id
}

// Blob writes data as a blob of the repository in dir and returns its id.
func Blob(t testing.TB, dir, data string) string {
	t.Helper()
	return Must(t, dir, dir, data, "hash-object", "-w", "--stdin")
}

// Tree writes a tree of exactly these entries, whatever their names, and returns its id.
func Tree(t testing.TB, dir string, entries ...Entry) string {
	t.Helper()
	// git orders entries by name, comparing a folder as if its name ended in '/'.
	key := func(e Entry) string {
		if e.Mode == "40000" {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	var raw bytes.Buffer
	for _, e := range entries {
		id, err := hex.DecodeString(e.Hash)
		if err != nil || len(id) != 20 {
			t.Fatalf("entry %q: bad id %q", e.Name, e.Hash)
		}
		raw.WriteString(e.Mode + " " + e.Name + "\x00")
		raw.Write(id)
	}
	f, err := os.CreateTemp(t.TempDir(), "tree")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(raw.Bytes())
	f.Close()
	return Must(t, dir, dir, "", "hash-object", "-t", "tree", "--literally", "-w", f.Name())
}

// Nest writes the folders names[0]/names[1]/…, the last holding inner (a tree id), and returns the outermost
// tree's id. The ids are computed here and every tree is written by one git call, so that a chain of hundreds of
// folders costs one process, not one each.
func Nest(t testing.TB, dir, inner string, names ...string) string {
	t.Helper()
	tmp := t.TempDir()
	var paths strings.Builder
	id := inner
	for i := len(names) - 1; i >= 0; i-- {
		raw, err := hex.DecodeString(id)
		if err != nil || len(raw) != 20 {
			t.Fatalf("bad id %q", id)
		}
		body := append([]byte("40000 "+names[i]+"\x00"), raw...)
		sum := sha1.Sum(append([]byte(fmt.Sprintf("tree %d\x00", len(body))), body...))
		id = hex.EncodeToString(sum[:])
		f := filepath.Join(tmp, id)
		if err := os.WriteFile(f, body, 0o644); err != nil {
			t.Fatal(err)
		}
		paths.WriteString(f + "\n")
	}
	Must(t, dir, dir, paths.String(), "hash-object", "-t", "tree", "--literally", "-w", "--stdin-paths")
	return id
}

// Commit writes a commit of tree with the given parents and returns its id.
func Commit(t testing.TB, dir, tree string, parents ...string) string {
	t.Helper()
	args := []string{"commit-tree", tree, "-m", "crafted"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	return Must(t, dir, dir, "", args...)
}

// BadTree is a crafted tree a push must be refused for, and what the refusal must say.
type BadTree struct {
	Name string
	// Build writes the tree into the repository in dir and returns its id.
	Build func(t testing.TB, dir string) string
	// Says is part of the refusal: the path of the bad entry.
	Says string
}

// BadTrees are the names, modes and collisions no push may bring.
func BadTrees() []BadTree {
	const ttl = "<a> <b> <c> .\n"
	file := func(name string) func(t testing.TB, dir string) string {
		return func(t testing.TB, dir string) string {
			return Tree(t, dir, Entry{"100644", name, Blob(t, dir, ttl)})
		}
	}
	nested := func(dir1, name string) func(t testing.TB, dir string) string {
		return func(t testing.TB, dir string) string {
			sub := Tree(t, dir, Entry{"100644", name, Blob(t, dir, ttl)})
			return Tree(t, dir, Entry{"40000", dir1, sub}, Entry{"100644", "ok.ttl", Blob(t, dir, ttl)})
		}
	}
	pair := func(a, b string) func(t testing.TB, dir string) string {
		return func(t testing.TB, dir string) string {
			return Tree(t, dir, Entry{"100644", a, Blob(t, dir, ttl)}, Entry{"100644", b, Blob(t, dir, "<a> <b> <d> .\n")})
		}
	}
	return []BadTree{
		{"a name reaching another repository", file("../../othergroup/repo/pub.ttl"), `"../../othergroup/repo/pub.ttl"`},
		{"a slash inside a name", file("sub/pub.ttl"), `"sub/pub.ttl"`},
		{"a backslash inside a name", file(`..\pub.ttl`), `"..\\pub.ttl"`},
		{"a folder named ..", nested("..", "pub.ttl"), `".."`},
		{"a folder named .", nested(".", "pub.ttl"), `"."`},
		{"a deep name holding ..", nested("deep", "../../../x.ttl"), `"deep/../../../x.ttl"`},
		{"a folder named .git", nested(".git", "config"), `".git"`},
		{"a folder named .GIT", nested(".GIT", "config"), `".GIT"`},
		{"a folder named .git with an HFS-ignorable code point", nested(".g\u200cit", "config"), `".g\u200cit"`},
		{"a folder named git~1", nested("git~1", "config"), `"git~1"`},
		{"a folder named .ld (the site's own)", nested(".ld", "cur.ttl"), `".ld"`},
		{"a deep folder named .ld", func(t testing.TB, dir string) string {
			ld := Tree(t, dir, Entry{"100644", "data.rdf", Blob(t, dir, ttl)})
			sub := Tree(t, dir, Entry{"40000", ".ld", ld})
			return Tree(t, dir, Entry{"40000", "core", sub})
		}, `"core/.ld"`},
		{"names differing only by case", pair("Core.ttl", "core.ttl"), `differs from`},
		{"names differing only by Unicode normalisation", pair("caf\u00e9.txt", "cafe\u0301.txt"), `differs from`},
		{"a control character", file("a\x01.ttl"), `control characters`},
		{"a symbolic link", func(t testing.TB, dir string) string {
			return Tree(t, dir, Entry{"120000", "link.ttl", Blob(t, dir, "../../othergroup/repo/pub.ttl")})
		}, `"link.ttl": symbolic links are refused`},
		{"a submodule", func(t testing.TB, dir string) string {
			return Tree(t, dir, Entry{"160000", "mod", strings.Repeat("ab", 20)}, Entry{"100644", "ok.ttl", Blob(t, dir, ttl)})
		}, `"mod": submodules are refused`},
		{"a published name starting with a dot", file(".hidden.ttl"), `.hidden.ttl: segment ".hidden.ttl"`},
		// go-git's walker stops at 1024 levels, which was "internal error"; the store refuses past 128.
		{"folders nested 1100 deep", func(t testing.TB, dir string) string {
			return Nest(t, dir, file("x.ttl")(t, dir), repeat("d", 1100)...)
		}, `folders nest more than 128 levels deep`},
		{"folders nested 129 deep", func(t testing.TB, dir string) string {
			return Nest(t, dir, file("x.ttl")(t, dir), repeat("d", 129)...)
		}, `folders nest more than 128 levels deep`},
		// A tree checked once at a shallow depth counts again where it is found deeper.
		{"a folder found again deeper", func(t testing.TB, dir string) string {
			chain := Nest(t, dir, file("x.ttl")(t, dir), repeat("c", 100)...)
			deeper := Nest(t, dir, chain, repeat("e", 40)...)
			return Tree(t, dir, Entry{"40000", "a", chain}, Entry{"40000", "b", deeper})
		}, `folders nest more than 128 levels deep`},
		// A path the site cannot store (over 4096 bytes with the site's folders) was accepted and never rendered.
		{"a published path of 75 long folders", func(t testing.TB, dir string) string {
			return Nest(t, dir, file("x.ttl")(t, dir), repeat(strings.Repeat("b", 64), 75)...)
		}, `more than the limit of 512 to be published`},
		{"a published path just over 512 bytes", func(t testing.TB, dir string) string {
			// 8 folders of 63 bytes with the slashes between them are 511 bytes; "/x.ttl" makes 517.
			return Nest(t, dir, file("x.ttl")(t, dir), repeat(strings.Repeat("b", 63), 8)...)
		}, `the path is 517 bytes, more than the limit of 512`},
	}
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Pack returns a pack of everything commit reaches in the repository in dir, as `git push` would send it.
func Pack(t testing.TB, dir, commit string) []byte {
	t.Helper()
	cmd := exec.Command("git", "pack-objects", "--stdout", "--revs", "-q")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(commit + "\n")
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git pack-objects: %v\n%s", err, errOut.String())
	}
	return out
}
