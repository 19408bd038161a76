package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/site/tree"
)

// TestLargeVocabularyPageMemory pushes a generated SKOS thesaurus of 40 000 concepts with the git CLI to `ldhub
// serve` and waits until its documented page and the 40 pages of its full listing are in place (rendered in the
// background after the push answered), then reads the server's peak resident memory (VmHWM). All the listing
// pages used to be one Hugo build, which held every page's front matter decoded into maps and its output at once:
// the peak grew with the vocabulary (924 MB at 40 000 concepts, 6.4 GB at 300 000 with term pages) where the push
// itself had taken 130 MB. Listing pages are now built a few at a time (pipeline.listingTermsPerBuild), so the peak after the
// push is the documentation's own size plus a bounded build: docs/reliability.md ("A large vocabulary's pages").
// Term pages are off, so that only the publication's pages are measured.
func TestLargeVocabularyPageMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("pushes a 6 MB vocabulary and waits for its pages")
	}
	needGit(t)
	const concepts = 40_000
	bin := ldhubBinary(t)
	data, addr := t.TempDir(), freeAddr(t)
	hub := startHubArgs(t, bin, []string{"serve", "--data", data, "--addr", addr, "--term-pages=false"},
		"LDHUB_ADMIN_ID=root", "LDHUB_ADMIN_SECRET=vocab-memory-secret", "GOGC=100", "GOMEMLIMIT=off")
	defer hub.stop(t)
	c := newClient(addr, "root", "vocab-memory-secret")
	defer c.close()
	vocabRepository(t, c)
	home := t.TempDir()
	if _, err := gitCmd(home, "clone", "-q", "http://root:vocab-memory-secret@"+addr+"/git/org/vocab.git", "wt"); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(home, "wt")
	if err := writeThesaurus(filepath.Join(wt, "thes.ttl"), "http://"+addr+"/org/vocab/thes", concepts); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "thes.ttl"}, {"commit", "-q", "-m", "thesaurus"}, {"push"}} {
		if out, err := gitCmd(wt, args...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	pushed := vmHWM(t, hub.cmd.Process.Pid)
	last := tree.SectionPage("concept", concepts/1000)
	deadline := time.Now().Add(10 * time.Minute)
	// The latest folder's page and the version's, one after the other.
	for countFiles(data, last) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no %s 10 minutes after the push\n%s", last, hub.logs.String())
		}
		time.Sleep(time.Second)
	}
	peak := vmHWM(t, hub.cmd.Process.Pid)
	t.Logf("VmHWM %d MB when the push answered, %d MB once the listing pages were in place", pushed>>20, peak>>20)
	// The budget (docs/reliability.md): the documentation decoded, about 1.2 KB a term (48 MB here), a build of
	// listing pages of at most 8 000 terms (about 60 MB) and the page's own build (3 000 terms and the labels
	// index), all twice over for the garbage collector's headroom at GOGC=100: about 300 MB. Measured at 40 000
	// concepts at load 30: 268 and 303 MB over the push's peak (the second with the index warmed for its first
	// query); the old code's 799 MB (573 MB at 30 000 concepts, growing with them). 400 MB leaves room for the
	// collector's timing on a loaded machine.
	if grown := peak - pushed; grown > 400<<20 {
		t.Errorf("the server's peak memory grew by %d MB after the push answered (at most 400 MB)", grown>>20)
	}
}

// writeThesaurus writes a SKOS thesaurus in Turtle of n concepts below uri, each with a label, a definition, its
// scheme and a broader concept (or the scheme's top), as a publisher's generated vocabulary.
func writeThesaurus(file, uri string, n int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n@prefix t: <%s/> .\n\n", uri)
	fmt.Fprintf(w, "t:scheme a skos:ConceptScheme ; skos:prefLabel \"Synthetic thesaurus\"@en .\n")
	for i := range n {
		fmt.Fprintf(w, "t:c%d a skos:Concept ;\n  skos:prefLabel \"concept %d\"@en ;\n  skos:definition \"The %dth concept.\"@en ;\n  skos:inScheme t:scheme ;\n", i, i, i)
		if i < 10 {
			fmt.Fprintf(w, "  skos:topConceptOf t:scheme .\n")
		} else {
			fmt.Fprintf(w, "  skos:broader t:c%d .\n", i/10-1)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// vmHWM is the peak resident memory of process pid, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// countFiles counts the files of that name below dir.
func countFiles(dir, name string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			n++
		}
		return nil
	})
	return n
}
