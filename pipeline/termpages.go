package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// termBatch is how many term pages one rebuild of the job's in-memory Hugo site (html.PageRenderer) renders: a
// rebuild's fixed part is spread over many pages, and the pages' data waiting for it stays a few megabytes. A
// rebuild does not hold the lock of the syncs' full builds (site/html hugoMu), so a sync does not wait for it.
const termBatch = 1000

// termPart lists, while a latest folder's term pages are being written, the pages already in place; TermSums
// replaces it when all are.
const termPart = ".part"

// termForeign lists, in a term pages folder, the URL paths of the other publications its pages asked for labels
// (describe.Foreign.Used): when one of them goes live with a new version, the folder's pages are fingerprinted
// again and those whose labels changed are rendered again.
const termForeign = ".foreign"

// maxTermSources bounds the earlier latest folders a term-page job may link unchanged pages from.
const maxTermSources = 3

// TermPageStats says what the term-page worker did, for logs, `ldhub build` and benchmarks.
type TermPageStats struct {
	// Terms are the resources with static pages, Rendered those rendered, Kept those linked from an earlier
	// latest folder because nothing they show changed, Paged those left to the handler because their incoming
	// links take more than a page. Described are the terms described and fingerprinted to find out whether
	// their page changed: every term of a first version, only those termChanges names for a new one.
	Terms, Rendered, Kept, Paged, Described int
}

func (s *TermPageStats) add(o TermPageStats) {
	s.Terms += o.Terms
	s.Described += o.Described
	s.Rendered += o.Rendered
	s.Kept += o.Kept
	s.Paged += o.Paged
}

// Term pages are written after the latest folder they belong to went live, by one worker in the background, so
// that a large thesaurus does not hold back its own publication (nor the syncs after it). Until a term's files are
// in place the handler renders its page on request, and nginx and Apache hand the request to ldhub (they serve a
// term only from its file). Each file is written in a staging folder and renamed into place, so a reader sees a
// term's file whole or not at all.
type termJob struct {
	pubDir string    // the publication's folder (tree.PubDir)
	dir    string    // the live latest folder the pages go into
	page   tree.Page // its page
	stamp  string    // the theme's fingerprint (pagesStamp) when the folder went live
	// sources are earlier latest folders whose unchanged pages are linked instead of rendered again (and dir
	// itself, for a job that resumes); they are kept until the job ends.
	sources []string
	cancel  context.CancelFunc
	hook    func()   // tests: called before each Hugo build
	used    []string // the publications whose labels the pages show (termForeign), once written
}

// termWorker is the queue of term-page jobs, at most one per publication.
type termWorker struct {
	mu      sync.Mutex
	queue   []*termJob
	running *termJob
	active  bool          // a goroutine runs the queue
	changed chan struct{} // closed and replaced at every change, for WaitTermPages
	stats   TermPageStats // since the last WaitTermPages
	err     error
	hook    func() // tests: called before each Hugo build of term pages
	// users maps a publication's URL path to the publication folders whose term pages show its labels; nil until
	// read from the tree's termForeign files at the first publication that goes live.
	users map[string]map[string]bool
}

// broadcast wakes the waiters; w.mu is held.
func (w *termWorker) broadcast() {
	if w.changed != nil {
		close(w.changed)
	}
	w.changed = make(chan struct{})
}

// held reports whether a queued or running job writes into or links from the latest folder dir; w.mu is held.
func (w *termWorker) held(dir string) bool {
	for _, j := range append(slices.Clone(w.queue), w.running) {
		if j != nil && (j.dir == dir || slices.Contains(j.sources, dir)) {
			return true
		}
	}
	return false
}

// queueTermPages queues the term pages of a latest folder that just went live. A job of the same publication still
// queued or running is superseded: its folder is no longer live, but its sources (and what it wrote) may still
// serve the new job.
// again is for a job whose folder's pages may be out of date although the folder is not new (labels of another
// publication changed): a running job of the same folder is restarted, since it may have passed them.
//
// A folder whose terms.json is still to be written (terms.go) is not queued: its pages would show no documentation,
// and writeLaterTerms queues them again once it is installed, which restarted the job (a 300 000-term push rendered
// 1 000 pages, then began again). If that write fails, the pages wait for the next sync, which queues it again;
// until then the handler renders them on request.
func (p *Pipeline) queueTermPages(j *termJob, again bool) {
	if termsPending(j.dir) {
		return
	}
	w := &p.terms
	w.mu.Lock()
	defer w.mu.Unlock()
	if r := w.running; r != nil && r.dir == j.dir && r.stamp == j.stamp && !again {
		return
	}
	merge := func(dirs ...string) {
		for _, d := range dirs {
			if d != "" && d != j.dir && !slices.Contains(j.sources, d) && len(j.sources) < maxTermSources {
				j.sources = append(j.sources, d)
			}
		}
	}
	for i, q := range w.queue {
		if q.pubDir == j.pubDir {
			if q.dir == j.dir && q.stamp == j.stamp {
				return
			}
			merge(q.sources...)
			w.queue = slices.Delete(w.queue, i, i+1)
			break
		}
	}
	if r := w.running; r != nil && r.pubDir == j.pubDir {
		r.cancel()
		merge(r.dir)
		merge(r.sources...)
	}
	w.queue = append(w.queue, j)
	w.broadcast()
	if !w.active {
		w.active = true
		go p.runTermPages()
	}
}

// dropTermPages cancels the jobs that write into dir (every job of pubDir when dir is "") and waits until none
// runs: the folder is about to be removed or replaced.
func (p *Pipeline) dropTermPages(pubDir, dir string) {
	w := &p.terms
	match := func(j *termJob) bool { return j != nil && j.pubDir == pubDir && (dir == "" || j.dir == dir) }
	for {
		w.mu.Lock()
		w.queue = slices.DeleteFunc(w.queue, match)
		r := w.running
		if !match(r) {
			w.mu.Unlock()
			return
		}
		r.cancel()
		ch := w.changed
		w.mu.Unlock()
		<-ch
	}
}

// stopTermPages cancels every job and waits until none runs (Run's end).
func (p *Pipeline) stopTermPages() {
	w := &p.terms
	for {
		w.mu.Lock()
		w.queue = nil
		if w.running == nil {
			w.mu.Unlock()
			return
		}
		w.running.cancel()
		ch := w.changed
		w.mu.Unlock()
		<-ch
	}
}

// WaitTermPages waits until the term pages queued by the syncs so far are written and the folders of removed
// publications deleted (removePubDir), and returns what was written since the last call and the errors of those
// jobs. `ldhub build` waits, so that it leaves no folder half deleted; `ldhub serve` does not.
func (p *Pipeline) WaitTermPages(ctx context.Context) (TermPageStats, error) {
	p.gone.Wait()
	w := &p.terms
	for {
		w.mu.Lock()
		if !w.active && len(w.queue) == 0 {
			st, err := w.stats, w.err
			w.stats, w.err = TermPageStats{}, nil
			w.mu.Unlock()
			return st, err
		}
		if w.changed == nil {
			w.broadcast()
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return TermPageStats{}, ctx.Err()
		}
	}
}

// runTermPages runs the queue until it is empty.
func (p *Pipeline) runTermPages() {
	w := &p.terms
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.active = false
			w.broadcast()
			w.mu.Unlock()
			return
		}
		j := w.queue[0]
		w.queue = w.queue[1:]
		ctx, cancel := context.WithCancel(context.Background())
		j.cancel, j.hook = cancel, w.hook
		w.running = j
		w.mu.Unlock()

		st, err := p.writeTermPages(ctx, j)
		cancel()
		w.mu.Lock()
		w.running = nil
		w.stats.add(st)
		if err != nil && ctx.Err() == nil {
			w.err = errors.Join(w.err, fmt.Errorf("pipeline: term pages of %s: %w", j.page.Path, err))
			p.o.Log.Error("pipeline: term pages", "publication", j.page.Path, "err", err)
		}
		if err == nil && w.users != nil {
			w.setUses(j.pubDir, j.used)
		}
		w.broadcast()
		w.mu.Unlock()
		if st.Terms > 0 {
			p.o.Log.Info("pipeline: term pages", "publication", j.page.Path, "terms", st.Terms, "rendered", st.Rendered,
				"kept", st.Kept, "paged", st.Paged, "described", st.Described, "complete", err == nil)
		}
		p.releaseLatest(j.pubDir)
		if err == nil {
			p.synced() // a follower of the tree (the bucket publisher) picks the pages up
		}
	}
}

// releaseLatest removes the latest folders of a publication that are neither live nor held by a term-page job.
// It waits for a sync in progress, which may be about to switch the publication to one of them.
func (p *Pipeline) releaseLatest(pubDir string) {
	p.work.Lock()
	defer p.work.Unlock()
	p.removeOldLatest(pubDir)
}

// removeOldLatest removes the latest folders of pubDir other than the live one and those a term-page job holds;
// p.work is held. Requests that opened one keep reading it.
func (p *Pipeline) removeOldLatest(pubDir string) {
	cur, err := os.Readlink(filepath.Join(pubDir, tree.Current))
	if err != nil {
		return
	}
	ents, err := os.ReadDir(pubDir)
	if err != nil {
		return
	}
	p.terms.mu.Lock()
	defer p.terms.mu.Unlock()
	for _, e := range ents {
		if dir := filepath.Join(pubDir, e.Name()); strings.HasPrefix(e.Name(), "L-") && e.Name() != cur && !p.terms.held(dir) {
			_ = os.RemoveAll(dir)
		}
	}
}

// resumeTermPages queues the term pages of a publication left unchanged by a sync whose live latest folder has
// not got all of them: ldhub stopped while they were written, or term pages were switched on since. With again,
// they are queued even when all are there, to be fingerprinted again (another publication's labels changed).
func (p *Pipeline) resumeTermPages(pubDir string, again bool) {
	if p.o.HTML == nil || !p.o.HTML.TermPages {
		return
	}
	cur, err := os.Readlink(filepath.Join(pubDir, tree.Current))
	if err != nil {
		return
	}
	dir := filepath.Join(pubDir, cur)
	if _, err := os.Stat(filepath.Join(dir, tree.TermPages, tree.TermSums)); err == nil && !again {
		return
	}
	pg, err := tree.ReadPage(dir)
	if err != nil {
		return
	}
	p.queueTermPages(&termJob{pubDir: pubDir, dir: dir, page: *pg, stamp: p.batch.stamp, sources: []string{dir}}, again)
}

// refreshLabelUsers queues again the term pages of the publications that show labels of the publication at
// urlPath (whose folder is self), which just went live with a new version.
func (p *Pipeline) refreshLabelUsers(urlPath, self string) {
	w := &p.terms
	w.mu.Lock()
	if w.users == nil {
		w.users = map[string]map[string]bool{}
		for _, private := range []bool{false, true} {
			root := tree.Root(p.o.Out, private)
			_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() || d.Name() != tree.MetaDir {
					return nil
				}
				b, err := os.ReadFile(filepath.Join(path, tree.Current, tree.TermPages, termForeign))
				if err == nil {
					w.setUses(path, strings.Fields(string(b)))
				}
				return filepath.SkipDir
			})
		}
	}
	var users []string
	for d := range w.users[urlPath] {
		if d != self {
			users = append(users, d)
		}
	}
	w.mu.Unlock()
	sort.Strings(users)
	for _, d := range users {
		p.resumeTermPages(d, true)
	}
}

// setUses records that the term pages of pubDir show labels of the publications at used (URL paths); w.mu is held.
func (w *termWorker) setUses(pubDir string, used []string) {
	for _, ds := range w.users {
		delete(ds, pubDir)
	}
	for _, u := range used {
		if w.users[u] == nil {
			w.users[u] = map[string]bool{}
		}
		w.users[u][pubDir] = true
	}
}

// termNames are the names below prefix (the publication's URI and a slash) of the IRIs that are subjects in the
// default graph and may have static pages (tree.TermPageName), sorted.
func termNames(ds *index.Dataset, prefix string) []string {
	var names []string
	var last index.ID
	for _, r := range ds.Default.Rows(index.SPO) {
		if r[0] == last {
			continue
		}
		last = r[0]
		t := ds.Dict.Term(r[0])
		if t.Kind != rdf.KindIRI || !strings.HasPrefix(t.Value, prefix) {
			continue
		}
		if name := t.Value[len(prefix):]; tree.TermPageName(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// readTermSums reads the fingerprints of the term pages in place in a term pages folder: all of them (TermSums)
// or, while they are being written, those written so far (termPart). None when it has none.
func readTermSums(dir string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(filepath.Join(dir, tree.TermSums))
	if err != nil {
		if b, err = os.ReadFile(filepath.Join(dir, termPart)); err != nil {
			return out
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		if sum, name, ok := strings.Cut(line, " "); ok {
			out[name] = sum
		}
	}
	return out
}

// termInPlace reports whether every file of a term is in the folder, not empty (a crash before the data reached
// the disk may leave an empty one).
func termInPlace(out, name string, exts []string) bool {
	for _, ext := range exts {
		if fi, err := os.Stat(filepath.Join(out, name+ext)); err != nil || fi.Size() == 0 {
			return false
		}
	}
	return true
}

// termSumScheme names how a term page's fingerprint (tree.TermSums) is made: a change of it, or of what the RDF
// encoders write for the same statements, must change it, so that every page is written again.
const termSumScheme = "q1"

// hashQuads writes the statements to a fingerprint, each term's fields ended by a NUL byte.
func hashQuads(h io.Writer, qs []rdf.Quad) {
	var b []byte
	for _, q := range qs {
		b = b[:0]
		for _, t := range [4]rdf.Term{q.S, q.P, q.O, q.G} {
			b = append(b, byte('0'+t.Kind))
			b = append(b, t.Value...)
			b = append(b, 0)
			b = append(b, t.Datatype...)
			b = append(b, 0)
			b = append(b, t.Lang...)
			b = append(b, 0)
		}
		h.Write(b)
	}
}

// linkInPlace puts an unchanged term's files in place when the folder has none of them yet (a new latest
// folder): each a hard link made straight at its name, which appears whole, as a rename would make it, with the
// version's time. It reports false, having linked nothing, when no source has the term with this fingerprint or
// the folder has some of its files (a resumed job: then the staged way replaces them).
func linkInPlace(sources []termSource, out, name, sum string, exts []string, mod time.Time) (bool, error) {
sources:
	for _, s := range sources {
		if s.sums[name] != sum {
			continue
		}
		for i, ext := range exts {
			to := filepath.Join(out, name+ext)
			if err := os.Link(filepath.Join(s.dir, name+ext), to); err != nil {
				for _, e := range exts[:i] {
					_ = os.Remove(filepath.Join(out, name+e))
				}
				if errors.Is(err, fs.ErrExist) {
					return false, nil
				}
				continue sources // this source lost the file: the next, or a render
			}
			// The link shares the source's inode, whose time the source's version gave it; a file of this
			// folder carries this version's time (as the staged way gives it, on the same inode).
			if err := os.Chtimes(to, mod, mod); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// termSource is a term pages folder whose unchanged pages a new one links, with their fingerprints.
type termSource struct {
	dir  string
	sums map[string]string
}

// stagedFile is a term's file written into the staging folder, to be renamed into place.
type stagedFile struct{ file, name, ext string }

// linkTerm hard-links a term's files from a source folder's pages into the staging folder, as link<ext>, to be
// renamed into place at once.
func linkTerm(from, scratch, name string, exts []string) error {
	for i, ext := range exts {
		if err := os.Link(filepath.Join(from, name+ext), filepath.Join(scratch, "link"+ext)); err != nil {
			for _, e := range exts[:i] {
				os.Remove(filepath.Join(scratch, "link"+e))
			}
			return err
		}
	}
	return nil
}
