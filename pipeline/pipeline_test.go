package pipeline_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/iso"
	"github.com/ldhub/ldhub/content/store/catalog"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

const base = "http://hub.example"

func newPipeline(t *testing.T, h *pipelinetest.Hub, out string) *pipeline.Pipeline {
	t.Helper()
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: out, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot reads every regular file under dir (symlinks by target), keyed by path relative to dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			m[rel] = "-> " + target
			return err
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			m[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func decodeFile(t *testing.T, path string, syn codec.Syntax, gz bool) []rdf.Quad {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	dec := syn.NewDecoder(r, rdf.DecodeOptions{Base: "http://wrong.example/"})
	var qs []rdf.Quad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return qs
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		qs = append(qs, q)
	}
}

func TestRenderEveryFormatOfEveryVersion(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	pub2 := h.Update(t, pub.ID, ".ttl", pipelinetest.Vocab+"<Third> a <http://www.w3.org/2002/07/owl#Class> .\n")
	out := t.TempDir()
	p := newPipeline(t, h, out)
	if !p.Pending(pub.ID) {
		t.Error("Pending before the first render = false")
	}
	res, err := p.BuildAll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Rendered, []string{pub.ID}) {
		t.Fatalf("rendered %v, want [%s]", res.Rendered, pub.ID)
	}
	if p.Pending(pub.ID) {
		t.Error("Pending after render = true")
	}
	reg := codec.Default()
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/core")
	want := map[string]int{"cur": 12, pub.Versions[0].Label: 11, pub2.Version.Label: 12} // triples (with the blank node's)
	for dirName, n := range want {
		dir := filepath.Join(pubDir, tree.Versions, dirName)
		if dirName == "cur" {
			dir = filepath.Join(pubDir, tree.Current)
		}
		var ref []rdf.Quad
		for _, ext := range []string{".ttl", ".nt", ".rdf", ".jsonld"} {
			syn, _ := reg.ByExtension(ext)
			got := decodeFile(t, filepath.Join(dir, "data"+ext), syn, false)
			gz := decodeFile(t, filepath.Join(dir, "data"+ext+".gz"), syn, true)
			if len(got) != n {
				t.Errorf("%s/data%s: %d triples, want %d", dirName, ext, len(got), n)
			}
			if !iso.Isomorphic(got, gz) {
				t.Errorf("%s: .gz differs: %s", ext, iso.Diff(got, gz))
			}
			if ref == nil {
				ref = got
			} else if !iso.Isomorphic(ref, got) {
				t.Errorf("%s/data%s differs from Turtle: %s", dirName, ext, iso.Diff(ref, got))
			}
			// Relative IRIs resolve against the publication URI followed by a slash.
			if !strings.Contains(quadsString(got), "<"+base+"/org/open/core/Thing>") {
				t.Errorf("%s/data%s: no <%s/org/open/core/Thing>", dirName, ext, base)
			}
		}
		ds, err := index.Open(filepath.Join(dir, tree.Index))
		if err != nil {
			t.Fatal(err)
		}
		if ds.Default.Len() != n {
			t.Errorf("%s index: %d triples, want %d", dirName, ds.Default.Len(), n)
		}
		ds.Close()
		var page tree.Page
		b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
		if err != nil || json.Unmarshal(b, &page) != nil {
			t.Fatalf("%s: page.json: %v", dirName, err)
		}
		if page.Stats.Triples != n || page.URI != base+"/org/open/core" || (dirName == "cur") != page.Latest {
			t.Errorf("%s: page %+v", dirName, page)
		}
		if dirName == "cur" && len(page.Versions) != 2 {
			t.Errorf("latest page lists %d versions, want 2", len(page.Versions))
		}
	}
}

func quadsString(qs []rdf.Quad) string {
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(q.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestStatistics(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	if _, err := newPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/core"), tree.Current, tree.PageJSON))
	if err != nil {
		t.Fatal(err)
	}
	var page tree.Page
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	st := page.Stats
	if st.Triples != 11 || st.Subjects != 4 {
		t.Errorf("triples %d subjects %d, want 11 and 4", st.Triples, st.Subjects)
	}
	owlClass := "http://www.w3.org/2002/07/owl#Class"
	if len(st.Classes) != 2 || st.Classes[0] != (tree.Count{Value: owlClass, N: 2}) {
		t.Errorf("classes %+v", st.Classes)
	}
	var size tree.Count
	for _, c := range st.Properties {
		if c.Value == base+"/org/open/core/size" {
			size = c
		}
	}
	if size.Label != "size" {
		t.Errorf("property <size> has label %q, want \"size\" (from the data)", size.Label)
	}
	if !slices.Equal(st.Languages, []tree.Count{{Value: "en", N: 2}, {Value: "nl", N: 1}}) {
		t.Errorf("languages %+v", st.Languages)
	}
}

func TestSameCommitSameBytes(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Publish(t, h.Closed.ID, "hidden", ".nt", "<http://x/a> <http://x/b> _:n .\n_:n <http://x/c> \"v\" .\n")
	a, b := t.TempDir(), t.TempDir()
	for _, out := range []string{a, b} {
		if _, err := newPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	sa, sb := snapshot(t, a), snapshot(t, b)
	if len(sa) < 20 {
		t.Fatalf("only %d files rendered", len(sa))
	}
	for k, v := range sa {
		if sb[k] != v {
			t.Errorf("%s differs between two renders of the same commits", k)
		}
	}
	if len(sa) != len(sb) {
		t.Errorf("%d files vs %d", len(sa), len(sb))
	}
}

func TestPrivateRepositoriesStayOutOfThePublicTree(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Closed.ID, "secret", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	if _, err := newPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for k := range snapshot(t, tree.Root(out, false)) {
		t.Errorf("public tree holds %s", k)
	}
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, true), "/org/closed/secret"), tree.Current, "data.ttl")); err != nil {
		t.Errorf("private rendering missing: %v", err)
	}
}

func TestIncremental(t *testing.T) {
	h := pipelinetest.New(t)
	a := h.Publish(t, h.Open.ID, "a", ".ttl", pipelinetest.Vocab)
	b := h.Publish(t, h.Open.ID, "b", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p := newPipeline(t, h, out)
	ctx := context.Background()
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	aCur := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/a"), tree.Current, "data.ttl")
	before, err := os.Stat(aCur)
	if err != nil {
		t.Fatal(err)
	}
	h.Update(t, b.ID, ".ttl", pipelinetest.Vocab+"<New> a <Thing> .\n")
	res, err := p.SyncRepository(ctx, h.Open.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Rendered, []string{b.ID}) || !slices.Equal(res.Skipped, []string{a.ID}) {
		t.Errorf("rendered %v skipped %v; want only %s rendered", res.Rendered, res.Skipped, b.ID)
	}
	after, err := os.Stat(aCur)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the unchanged publication's dump was rewritten")
	}
	// A fresh pipeline over the same tree (a restart) also skips everything.
	res, err = newPipeline(t, h, out).SyncRepository(ctx, h.Open.ID)
	if err != nil || len(res.Rendered) != 0 || len(res.Skipped) != 2 {
		t.Errorf("after restart: %+v, %v", res, err)
	}
}

func TestDeletedPublicationIsRemoved(t *testing.T) {
	h := pipelinetest.New(t)
	a := h.Publish(t, h.Open.ID, "a", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p := newPipeline(t, h, out)
	ctx := context.Background()
	if _, err := p.SyncRepository(ctx, h.Open.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Store.DeletePublication(ctx, h.Admin, a.ID); err != nil {
		t.Fatal(err)
	}
	res, err := p.SyncRepository(ctx, h.Open.ID)
	if err != nil || !slices.Equal(res.Removed, []string{a.ID}) {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(tree.PubDir(tree.Root(out, false), "/org/open/a")); !os.IsNotExist(err) {
		t.Errorf("rendering still there: %v", err)
	}
}

func TestDatasetsGetDatasetDumps(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "ds", ".nq", "<http://x/a> <http://x/b> <http://x/c> <http://x/g> .\n")
	out := t.TempDir()
	if _, err := newPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/ds"), tree.Current)
	for _, f := range []string{"data.trig", "data.nq", "data.jsonld"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("dataset dump %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data.rdf")); !os.IsNotExist(err) {
		t.Errorf("a dataset got an RDF/XML dump (it cannot hold named graphs): %v", err)
	}
}

// Run follows the store: a REST-style write is rendered without anyone calling the pipeline, and Pending is true
// from the write until the new version is live.
func TestRunRendersEveryCommit(t *testing.T) {
	h := pipelinetest.New(t)
	out := t.TempDir()
	p := newPipeline(t, h, out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	}()
	live := func(path, want string) bool {
		b, err := os.ReadFile(filepath.Join(tree.PubDir(tree.Root(out, false), path), tree.Current, "data.nt"))
		return err == nil && strings.Contains(string(b), want)
	}
	pub := h.Publish(t, h.Open.ID, "core", ".ttl", `<a> <b> "one" .`)
	if !p.Pending(pub.ID) && !live("/org/open/core", `"one"`) {
		t.Error("not pending right after the write, and not live either")
	}
	waitFor(t, func() bool { return !p.Pending(pub.ID) })
	if !live("/org/open/core", `"one"`) {
		t.Error("not pending, but the first version is not live")
	}
	h.Update(t, pub.ID, ".ttl", `<a> <b> "two" .`)
	waitFor(t, func() bool { return !p.Pending(pub.ID) && live("/org/open/core", `"two"`) })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A statement RDF/XML cannot carry (a predicate with no local name) costs that dump only: the version still goes
// live in the other syntaxes, and conneg no longer offers RDF/XML for it.
func TestUnwritableDumpIsLeftOut(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "odd", ".nt", "<http://x/a> <http://x/> \"v\" .\n")
	out := t.TempDir()
	if _, err := newPipeline(t, h, out).BuildAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/odd"), tree.Current)
	b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
	if err != nil {
		t.Fatal(err)
	}
	var page tree.Page
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatal(err)
	}
	var exts []string
	for _, f := range page.Formats {
		exts = append(exts, f.Ext)
	}
	if !slices.Equal(exts, []string{".ttl", ".nt", ".jsonld"}) {
		t.Errorf("formats %v, want .ttl .nt .jsonld", exts)
	}
	if _, err := os.Stat(filepath.Join(dir, "data.rdf")); !os.IsNotExist(err) {
		t.Errorf("data.rdf: %v", err)
	}
}

// Hiding a repository moves its renderings out of the public tree (a catalogue change re-syncs everything).
func TestHidingARepositoryMovesItsPublications(t *testing.T) {
	h := pipelinetest.New(t)
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p := newPipeline(t, h, out)
	ctx := context.Background()
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hidden := false
	if _, err := h.Store.UpdateRepository(ctx, h.Admin, h.Open.ID, catalog.RepositoryPatch{Visible: &hidden}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree.PubDir(tree.Root(out, false), "/org/open/core")); !os.IsNotExist(err) {
		t.Errorf("still in the public tree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, true), "/org/open/core"), tree.Current, "data.ttl")); err != nil {
		t.Errorf("not in the private tree: %v", err)
	}
}

// Versions committed within one second, with dumps of one size, must still differ in modification time: Last-Modified
// and the ETag (mtime and size, as nginx makes it) of the unversioned URL come from it, and a cache revalidating
// that URL would otherwise keep the older version's bytes.
func TestVersionsOfOneSecondGetDistinctValidators(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "same", ".nt", "<http://x/a> <http://x/b> \"1\" .\n")
	out := t.TempDir()
	p := newPipeline(t, h, out)
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/same")
	seen := map[string]string{} // ETag-like "mtime-size" of the latest dump → its content
	check := func() {
		t.Helper()
		if _, err := p.BuildAll(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		dump := filepath.Join(pubDir, tree.Current, tree.DataBase+".nt")
		fi, err := os.Stat(dump)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		if fi.ModTime().After(time.Now()) {
			t.Errorf("live with a modification time in the future: %v", fi.ModTime())
		}
		tag := fi.ModTime().UTC().Format(time.RFC3339) + "-" + strconv.FormatInt(fi.Size(), 10)
		if old, ok := seen[tag]; ok && old != string(b) {
			t.Errorf("validator %s names two different dumps:\n%s\n%s", tag, old, b)
		}
		seen[tag] = string(b)
	}
	check()
	for _, v := range []string{"2", "3", "4"} {
		h.Update(t, pub.ID, ".nt", "<http://x/a> <http://x/b> \""+v+"\" .\n")
		check()
	}
	if len(seen) != 4 {
		t.Errorf("%d validators for 4 versions", len(seen))
	}
	// Every version folder's time is strictly later than its predecessor's, whatever git's commit times say.
	ents, err := os.ReadDir(filepath.Join(pubDir, tree.Versions))
	if err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for _, e := range ents {
		var pg tree.Page
		b, err := os.ReadFile(filepath.Join(pubDir, tree.Versions, e.Name(), tree.PageJSON))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &pg); err != nil {
			t.Fatal(err)
		}
		times = append(times, pg.Version.Time)
	}
	slices.SortFunc(times, time.Time.Compare)
	for i := 1; i < len(times); i++ {
		if !times[i].After(times[i-1]) {
			t.Errorf("versions %d and %d share the time %v", i-1, i, times[i])
		}
	}
}

// A version dated ahead by its author's clock goes live at once with its own time: the switch waits only for a time
// that strictlyLater moved a second or two ahead. An unbounded wait would stall every sync of the repository until
// the author's date came.
func TestVersionDatedAheadGoesLiveAtOnce(t *testing.T) {
	ahead := 365 * 24 * time.Hour
	h := pipelinetest.NewWithClock(t, func() time.Time { return time.Now().Add(ahead) })
	h.Publish(t, h.Open.ID, "skewed", ".nt", "<http://x/a> <http://x/b> \"1\" .\n")
	out := t.TempDir()
	p := newPipeline(t, h, out)
	// Generous against a loaded machine, and far below the year the version is dated ahead.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatalf("sync of a version dated a year ahead: %v", err)
	}
	fi, err := os.Stat(filepath.Join(tree.PubDir(tree.Root(out, false), "/org/open/skewed"), tree.Current, tree.DataBase+".nt"))
	if err != nil {
		t.Fatal(err)
	}
	if until := time.Until(fi.ModTime()); until < ahead/2 {
		t.Errorf("live dump dated %v ahead, want its commit's time, about %v ahead", until, ahead)
	}
}

// A hub upgraded to a binary whose SPARQL index format changed keeps its rendered folders, which the pipeline
// otherwise trusts because versions are immutable. Each folder's index must be built again in the new format, the
// latest folder's too, or every query and term page of the old versions fails until someone deletes the tree.
func TestIndexOfAnEarlierFormatIsRebuilt(t *testing.T) {
	h := pipelinetest.New(t)
	pub := h.Publish(t, h.Open.ID, "old", ".nt", "<http://x/a> <http://x/b> \"1\" .\n")
	h.Update(t, pub.ID, ".nt", "<http://x/a> <http://x/b> \"2\" .\n")
	out := t.TempDir()
	p := newPipeline(t, h, out)
	ctx := context.Background()
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	pubDir := tree.PubDir(tree.Root(out, false), "/org/open/old")
	indexes, err := filepath.Glob(filepath.Join(pubDir, tree.Versions, "*", tree.Index))
	if err != nil || len(indexes) != 2 {
		t.Fatalf("version indexes %v: %v", indexes, err)
	}
	// What an earlier binary left: the magic of format 01, in place, so the latest folder's hard link sees it too.
	for _, ix := range indexes {
		f, err := os.OpenFile(ix, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("LDHIDX01"), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if _, err := index.Open(filepath.Join(pubDir, tree.Current, tree.Index)); !errors.Is(err, index.ErrOldFormat) {
		t.Fatalf("the test's old index opens: %v", err)
	}
	p = newPipeline(t, h, out)
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, ix := range append(indexes, filepath.Join(pubDir, tree.Current, tree.Index)) {
		ds, err := index.Open(ix)
		if err != nil {
			t.Errorf("after the upgrade: %v", err)
			continue
		}
		if n := ds.Default.Len(); n != 1 {
			t.Errorf("%s: %d triples", ix, n)
		}
		ds.Close()
	}
}
