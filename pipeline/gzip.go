package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ldhub/ldhub/site/tree"
)

// The .gz siblings of a large version's dumps are written after the version is live (see renderVersion): until
// a sibling is there, its dump is served uncompressed (by ldhub's handler, and by nginx's gzip_static, which falls
// back to the plain file), always from the version the folder holds.
//
// A sibling is compressed into a temporary file in the versions folder (which the start-up sweep cleans), renamed
// into the version folder, and hard-linked into each latest folder whose dump is the same file (same inode) as the
// one compressed. The latest folders are themselves hard links to a version folder's files, so a latest folder of
// another version (published meanwhile) never gets it. Renaming and linking happen under the pipeline's work
// lock, so no sync moves or removes folders in between.

// gzipJob is a rendered version folder (its final path) and the dumps in it that have no .gz sibling yet.
type gzipJob struct {
	dir   string
	files []string
}

// gzipQueue holds the work Run's background worker does after the switch: the late dumps of large versions
// (dumps.go) first, then their terms (terms.go), then documented pages (later.go), then .gz siblings.
type gzipQueue struct {
	mu    sync.Mutex
	dumps []string   // version folders whose late dumps are still to be written (dumps.go), before anything else
	terms []termsJob // terms.json of large versions (terms.go), before the pages that read them
	pages []laterPage
	jobs  []gzipJob
	wake  chan struct{}
	idle  chan struct{} // closed when the queue is empty and no job is running; replaced when one is added
	busy  bool
}

func newGzipQueue() *gzipQueue {
	q := &gzipQueue{wake: make(chan struct{}, 1), idle: make(chan struct{})}
	close(q.idle)
	return q
}

func (q *gzipQueue) add(jobs []gzipJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busyLocked()
	q.jobs = append(q.jobs, jobs...)
}

func (q *gzipQueue) addTerms(jobs []termsJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busyLocked()
	q.terms = append(q.terms, jobs...)
}

func (q *gzipQueue) addDumps(dirs []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busyLocked()
	q.dumps = append(q.dumps, dirs...)
}

// takeDumps takes every queued late-dumps job.
func (q *gzipQueue) takeDumps() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	ds := q.dumps
	q.dumps = nil
	if len(ds) > 0 {
		q.busy = true
	}
	return ds
}

// takeTerms takes every queued terms job.
func (q *gzipQueue) takeTerms() []termsJob {
	q.mu.Lock()
	defer q.mu.Unlock()
	ts := q.terms
	q.terms = nil
	if len(ts) > 0 {
		q.busy = true
	}
	return ts
}

func (q *gzipQueue) addPages(pages []laterPage) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busyLocked()
	q.pages = append(q.pages, pages...)
}

// busyLocked marks the queue not idle and wakes the worker.
func (q *gzipQueue) busyLocked() {
	if len(q.jobs) == 0 && len(q.pages) == 0 && len(q.terms) == 0 && len(q.dumps) == 0 && !q.busy {
		q.idle = make(chan struct{})
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// takePages takes every queued page, to be rendered with one Hugo build.
func (q *gzipQueue) takePages() []laterPage {
	q.mu.Lock()
	defer q.mu.Unlock()
	ps := q.pages
	q.pages = nil
	if len(ps) > 0 {
		q.busy = true
	}
	return ps
}

// next takes the oldest job; ok is false (and the queue reported idle) when there is none.
func (q *gzipQueue) next() (j gzipJob, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pages) > 0 || len(q.terms) > 0 || len(q.dumps) > 0 {
		return gzipJob{}, true // dumps, terms or pages came meanwhile: the worker takes them first
	}
	if len(q.jobs) == 0 {
		if q.busy {
			q.busy = false
			close(q.idle)
		}
		return gzipJob{}, false
	}
	j, q.jobs = q.jobs[0], q.jobs[1:]
	q.busy = true
	return j, true
}

// queueGzip records that the version folder dir (its final path) needs .gz siblings for files, once the sync in
// progress has put it in place.
func (p *Pipeline) queueGzip(dir string, files []string) {
	if len(files) > 0 && p.batch != nil {
		p.batch.gzip = append(p.batch.gzip, gzipJob{dir: dir, files: files})
	}
}

// unzippedDumps lists the dumps of a rendered folder without a .gz sibling: those of a large version that a
// process stopped before compressing (they are compressed at the next sync of the publication).
func unzippedDumps(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, tree.DataBase+".") && !strings.HasSuffix(n, ".gz") && !have[n+".gz"] && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	return out
}

// startGzip hands the sync's jobs over once its folders are in place: to the background compressor when Run is
// running one, else they are done now (the caller holds the work lock), so that a sync called directly (ldhub
// build, preview, tests) returns with every sibling written.
func (p *Pipeline) startGzip(ctx context.Context, jobs []gzipJob) {
	if len(jobs) == 0 {
		return
	}
	if q := p.gz.Load(); q != nil {
		q.add(jobs)
		return
	}
	for _, j := range jobs {
		p.gzipFolder(ctx, j, false)
	}
}

// runGzip is the background compressor: it works through the queue until ctx ends, and tells the follower of the
// tree (Options.Synced) after each round, since the tree gained files.
func (p *Pipeline) runGzip(ctx context.Context, q *gzipQueue) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		did := false
		for ctx.Err() == nil {
			for _, d := range q.takeDumps() {
				did = p.writeLateDumps(ctx, d, true) || did
			}
			for _, j := range q.takeTerms() {
				ok, err := p.writeLaterTerms(ctx, j, true)
				if err != nil {
					p.o.Log.Warn("pipeline: terms.json not written", "folder", j.dir, "err", err)
				}
				did = did || ok
			}
			if ps := q.takePages(); len(ps) > 0 {
				p.renderLater(ctx, ps)
				did = true
			}
			j, ok := q.next()
			if !ok {
				break
			}
			if j.dir != "" {
				did = p.gzipFolder(ctx, j, true) || did
			}
		}
		if did && ctx.Err() == nil {
			p.synced()
		}
	}
}

// WaitBackground waits until Run's background worker (if one runs) has done what was queued so far (documented
// pages, .gz siblings), or ctx ends.
func (p *Pipeline) WaitBackground(ctx context.Context) error {
	q := p.gz.Load()
	if q == nil {
		return nil
	}
	q.mu.Lock()
	idle := q.idle
	q.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gzipFolder writes the job's siblings and reports whether it wrote any.
func (p *Pipeline) gzipFolder(ctx context.Context, j gzipJob, lock bool) bool {
	did := false
	for _, name := range j.files {
		if ctx.Err() != nil {
			break
		}
		ok, err := p.gzipDump(ctx, j.dir, name, lock)
		if err != nil {
			p.o.Log.Warn("pipeline: .gz sibling not written", "file", filepath.Join(j.dir, name), "err", err)
		}
		did = did || ok
	}
	return did
}

// gzipDump writes the .gz sibling of dir/name and links it into the latest folders that serve the same file. A
// folder removed meanwhile (a newer version in NONE mode, a deleted publication) is not an error.
func (p *Pipeline) gzipDump(ctx context.Context, dir, name string, lock bool) (bool, error) {
	plain := filepath.Join(dir, name)
	src, err := os.Open(plain)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(plain + ".gz"); err == nil {
		return false, nil
	}
	tmp, err := writeBeside(dir, "gz-", fi, func(f *os.File) error {
		zw := newGzipWriter(f)
		_, err := io.Copy(zw.zw, ctxReader{ctx, src})
		if cerr := zw.close(); err == nil {
			err = cerr
		}
		return err
	})
	if tmp != "" {
		defer os.Remove(tmp) // unless renamed
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		return false, err
	}
	if tmp == "" {
		return false, nil
	}
	if lock {
		p.work.Lock()
		defer p.work.Unlock()
	}
	err = installGzip(plain, fi, tmp)
	return err == nil, err
}

// writeBeside writes a file derived from a version folder's file (fi: its state when it was read) with write, under
// a temporary name beside the folder dir, readable by all and with the source's time (Last-Modified is the
// version's, as for every file of the folder). It returns the temporary name, to rename into place or remove, or
// "" with no error when the folder's parent is gone (a publication deleted meanwhile).
func writeBeside(dir, kind string, fi os.FileInfo, write func(*os.File) error) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(dir), tmpPrefix+kind)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	err = write(f)
	// write may close f itself (a gzip sibling's writer does).
	if cerr := f.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Chtimes(f.Name(), fi.ModTime(), fi.ModTime())
	}
	return f.Name(), err
}

// installGzip renames the compressed copy of plain (fi: its state when it was read) into place beside it, and links
// it into every latest folder of the publication whose file of that name is the same one. The caller holds the
// work lock.
func installGzip(plain string, fi os.FileInfo, tmp string) error {
	now, err := os.Stat(plain)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !os.SameFile(fi, now) || now.Size() != fi.Size() {
		return fmt.Errorf("%s changed while compressed", plain)
	}
	if _, err := os.Lstat(plain + ".gz"); err == nil {
		return nil
	}
	if err := os.Rename(tmp, plain+".gz"); err != nil {
		return err
	}
	// dir is <meta>/v/<version>; the latest folders are <meta>/L-*.
	meta := filepath.Dir(filepath.Dir(filepath.Dir(plain)))
	name := filepath.Base(plain)
	ents, err := os.ReadDir(meta)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "L-") {
			continue
		}
		there := filepath.Join(meta, e.Name(), name)
		lf, err := os.Stat(there)
		if err != nil || !os.SameFile(lf, now) {
			continue
		}
		if err := os.Link(plain+".gz", there+".gz"); err != nil && !errors.Is(err, fs.ErrExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ctxReader stops a copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}
