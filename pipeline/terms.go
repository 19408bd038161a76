package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/pipeline/stream"
	"github.com/ldhub/ldhub/site/tree"
)

// What a version defines (terms.json, content/vocab) feeds its documented pages, its term pages and the handler's
// descriptions of its terms, none of which a large version needs to go live: its page is documented after the
// switch anyway (later.go). Collecting it in the render's fan-out was the largest of the fan-out's readers for a
// 1 M-triple upload (0.77 of 4.2 CPU-s), so under Run a large version (above codec.StreamAbove) goes live without
// it. Its folder holds a marker (termsMarker) with the prefixes the documentation lists; the background worker
// then reads the version's N-Triples or N-Quads dump once, writes terms.json under a temporary name, renames it into
// the version folder and hard-links it into each latest folder that serves the same dump (as the .gz siblings are,
// gzip.go), and removes the markers. Pages with the marker are documented after the switch (heavyDoc), after the
// terms are written: the worker takes terms jobs first. A stop before they are written leaves the marker, and the
// next sync of the publication queues the job again.
//
// Until then the version is served as it is, with the same dumps, index and statistics; only its terms'
// documentation (on its page, its term pages and the term descriptions of the handler) comes a few seconds later.

// termsMarker is the file of a folder whose terms.json is still to be written: the prefixes (JSON) to write it
// with.
const termsMarker = "terms.pending"

// termsJob is a version folder (its final path) whose terms.json is written after the switch; stamp is the sync's
// theme stamp, for the term pages queued again once it is written.
type termsJob struct {
	dir   string
	stamp string
}

func writeTermsMarker(dir string, prefixes []rdf.Prefix) error {
	b, err := json.Marshal(prefixes)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, termsMarker), b, 0o644)
}

// termsPending says whether the folder's terms.json is still to be written after the switch.
func termsPending(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, termsMarker))
	return err == nil
}

// queueTerms records that the version folder dir (its final path, in place or staged by this sync) gets its
// terms.json once the sync's folders are in place.
func (p *Pipeline) queueTerms(dir string) {
	if p.batch != nil {
		p.batch.terms = append(p.batch.terms, termsJob{dir: dir, stamp: p.batch.stamp})
	}
}

// resumeTerms queues the terms of a version folder that is in place and still has its marker (or a latest folder
// serving its dump has): ldhub stopped before they were written. Without Run's worker they are written now, before
// this sync's pages read them. The caller holds the work lock.
func (p *Pipeline) resumeTerms(ctx context.Context, dir string) {
	cur := filepath.Join(filepath.Dir(filepath.Dir(dir)), tree.Current)
	if !termsPending(dir) && !termsPending(cur) {
		return
	}
	if p.gz.Load() == nil {
		if _, err := p.writeLaterTerms(ctx, termsJob{dir: dir}, false); err != nil {
			p.o.Log.Warn("pipeline: terms.json not written", "folder", dir, "err", err)
		}
		return
	}
	p.queueTerms(dir)
}

// startTerms hands the sync's terms jobs to the background worker, before its pages (which read them); without
// one they are written now. The caller holds the work lock.
func (p *Pipeline) startTerms(ctx context.Context, jobs []termsJob) {
	if len(jobs) == 0 {
		return
	}
	if q := p.gz.Load(); q != nil {
		q.addTerms(jobs)
		return
	}
	for _, j := range jobs {
		if _, err := p.writeLaterTerms(ctx, j, false); err != nil {
			p.o.Log.Warn("pipeline: terms.json not written", "folder", j.dir, "err", err)
		}
	}
}

// termsDump is the version folder's dump that the terms are read from, and whether it holds quads.
func (p *Pipeline) termsDump(dir string) (string, bool) {
	for _, name := range []string{"n-triples", "n-quads"} {
		syn, ok := p.o.Codecs.ByName(name)
		if !ok {
			continue
		}
		file := filepath.Join(dir, tree.DataBase+syn.Extensions[0])
		if _, err := os.Stat(file); err == nil {
			return file, name == "n-quads"
		}
	}
	return "", false
}

// writeLaterTerms writes the terms.json of the job's folder from its N-Triples or N-Quads dump and puts it in
// place (installTerms), then queues the term pages of the live latest folder again, which now have their
// documentation. It reports whether it wrote anything. A folder that is gone, or whose terms are written, is not
// an error. lock: take the work lock to install (the background worker); a sync holds it already.
func (p *Pipeline) writeLaterTerms(ctx context.Context, j termsJob, lock bool) (bool, error) {
	dump, quads := p.termsDump(j.dir)
	if dump == "" {
		return false, nil // gone, or a version without such a dump (none is rendered without one)
	}
	src, err := os.Open(dump)
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
	tmp := ""
	if b, err := os.ReadFile(filepath.Join(j.dir, termsMarker)); err == nil {
		var prefixes []rdf.Prefix
		if err := json.Unmarshal(b, &prefixes); err != nil {
			return false, fmt.Errorf("%s: %w", filepath.Join(j.dir, termsMarker), err)
		}
		if tmp, err = collectTerms(ctx, src, quads, prefixes, filepath.Dir(j.dir)); err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			return false, err
		}
		defer os.Remove(tmp) // unless renamed
		// Last-Modified is the version's time, as for every file of the folder.
		if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
			return false, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if lock {
		p.work.Lock()
		defer p.work.Unlock()
	}
	latest, err := installTerms(dump, fi, tmp)
	if err != nil || latest == "" {
		return err == nil && tmp != "", err
	}
	if p.o.HTML != nil && p.o.HTML.TermPages {
		if pg, err := tree.ReadPage(latest); err == nil {
			p.queueTermPages(&termJob{pubDir: filepath.Dir(latest), dir: latest, page: *pg, stamp: j.stamp, sources: []string{latest}}, true)
		}
	}
	return true, nil
}

// collectTerms reads the dump from src and writes what it defines into a new temporary file in dir (returned).
func collectTerms(ctx context.Context, src io.Reader, quads bool, prefixes []rdf.Prefix, dir string) (string, error) {
	r := bufio.NewReaderSize(ctxReader{ctx, src}, 1<<20)
	o := rdf.DecodeOptions{Blanks: rdf.NewBlankNodes(blankPrefix)}
	dec := ntriples.NewDecoder(r, o)
	if quads {
		dec = ntriples.NewQuadDecoder(r, o)
	}
	raw := stream.NewRawQuads(dec)
	c := vocab.NewCollector()
	var q rdf.Quad
	for {
		err := raw.Read(&q)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		c.Add(q)
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"terms-")
	if err != nil {
		return "", err
	}
	if err := encodeTerms(f, c, prefixes); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// installTerms renames tmp (written from dump, fi: its state when it was read; "" when the version folder has its
// terms.json already) to the version folder's terms.json, links it into every latest folder of the publication
// whose dump is the same file, and removes the markers. It returns the live latest folder it changed, if any.
// The caller holds the work lock.
func installTerms(dump string, fi os.FileInfo, tmp string) (string, error) {
	now, err := os.Stat(dump)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !os.SameFile(fi, now) {
		return "", fmt.Errorf("%s changed while read", dump)
	}
	dir := filepath.Dir(dump)
	terms := filepath.Join(dir, tree.Terms)
	if tmp != "" {
		if err := os.Rename(tmp, terms); err != nil {
			return "", err
		}
	} else if _, err := os.Stat(terms); err != nil {
		return "", nil // a folder rendered before terms.json existed, with no marker: nothing to install
	}
	if err := os.Remove(filepath.Join(dir, termsMarker)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	// dir is <meta>/v/<version>; the latest folders are <meta>/L-*.
	meta := filepath.Dir(filepath.Dir(dir))
	ents, err := os.ReadDir(meta)
	if err != nil {
		return "", err
	}
	cur, _ := os.Readlink(filepath.Join(meta, tree.Current))
	name := filepath.Base(dump)
	live := ""
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "L-") {
			continue
		}
		ld := filepath.Join(meta, e.Name())
		lf, err := os.Stat(filepath.Join(ld, name))
		if err != nil || !os.SameFile(lf, now) {
			continue
		}
		changed := false
		if err := os.Link(terms, filepath.Join(ld, tree.Terms)); err == nil {
			changed = true
		} else if !errors.Is(err, fs.ErrExist) {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(filepath.Join(ld, termsMarker)); err == nil {
			changed = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		if changed && e.Name() == cur {
			live = ld
		}
	}
	return live, errors.Join(errs...)
}
