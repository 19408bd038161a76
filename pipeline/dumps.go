package pipeline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
)

// The Turtle (TriG), RDF/XML and JSON-LD dumps of a large version read from N-Triples or N-Quads are written
// after the version is live. In the render RDF/XML and JSON-LD were 0.56 CPU-s of ~4.4 until a 1 M-triple update
// was live, on two cores shared with the upload's validation and commit, plus the writes of ~500 MB into the page
// cache; Turtle was then the largest reader of the render's fan-out (a CPU profile of ldhub serve, session 12). A
// publisher waits for the direct URL and SPARQL, which need none of them; the N-Triples or N-Quads dump stays in
// the render, as every late dump and the terms are written from it.
//
// Under Run, such a version (above codec.StreamAbove, whose terms are written later too: terms.go) is rendered
// without them. Its page lists them (with size 0) and its folder holds a marker (tree.LateDumps) with the
// prefixes and blank-node labels to write them with. The background worker takes these jobs before any other:
// it reads the version's N-Triples or N-Quads dump once per late dump (codec.Redump), writes it under a temporary
// name, gives it the version's time, renames it into the version folder and hard-links it into each latest folder
// serving the same dump (as the .gz siblings are, gzip.go), then removes the markers and queues the new dumps'
// .gz siblings. Turtle (TriG) and JSON-LD are written before RDF/XML: the generated nginx and Apache
// configurations serve a graph publication from files only when its data.rdf is there, so until the last late
// dump is written every request goes to ldhub.
//
// Until a dump is written, the direct-URL handler answers its media type by converting the same N-Triples dump
// the same way (site: the late dump's bytes, ETag and Last-Modified), and the object-store publisher waits for
// it. Only sources read from N-Triples or N-Quads are treated so: their dump lists the statements in the order
// the render read them, so blank nodes read back get the labels they had, and the late dump is byte for byte the
// one the render would have written. Other syntaxes label blank nodes in their own order.

// lateSyntaxes are the dumps written after the switch, in the order they are written: the default
// representations first (Turtle, TriG: what a client that names no media type gets), RDF/XML last (see above).
var lateSyntaxes = []string{"turtle", "trig", "json-ld", "rdf-xml"}

// writeLateMarker writes the marker of the dumps among names that are written later, and returns their names in
// the order they are written.
func writeLateMarker(dir string, names []string, prefixes []rdf.Prefix) ([]string, error) {
	var late []string
	for _, n := range lateSyntaxes {
		if slices.Contains(names, n) {
			late = append(late, n)
		}
	}
	if len(late) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(tree.LateDumpsMarker{Prefixes: prefixes, Blanks: blankPrefix})
	if err != nil {
		return nil, err
	}
	return late, os.WriteFile(filepath.Join(dir, tree.LateDumps), b, 0o644)
}

// queueDumps records that the version folder dir (its final path) gets its late dumps once the sync's folders are
// in place.
func (p *Pipeline) queueDumps(dir string) {
	if p.batch != nil {
		p.batch.dumps = append(p.batch.dumps, dir)
	}
}

// resumeDumps queues the late dumps of a version folder that is in place and still has its marker (or a latest
// folder serving its dumps has): ldhub stopped before they were written. Without Run's worker they are written
// now. The caller holds the work lock.
func (p *Pipeline) resumeDumps(ctx context.Context, dir string) {
	cur := filepath.Join(filepath.Dir(filepath.Dir(dir)), tree.Current)
	if !latePending(dir) && !latePending(cur) {
		return
	}
	if p.gz.Load() == nil {
		p.writeLateDumps(ctx, dir, false)
		return
	}
	p.queueDumps(dir)
}

func latePending(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, tree.LateDumps))
	return err == nil
}

// startDumps hands the sync's late dumps to the background worker, before anything else it does; without one they
// are written now. The caller holds the work lock.
func (p *Pipeline) startDumps(ctx context.Context, dirs []string) {
	if len(dirs) == 0 {
		return
	}
	if q := p.gz.Load(); q != nil {
		q.addDumps(dirs)
		return
	}
	for _, d := range dirs {
		p.writeLateDumps(ctx, d, false)
	}
}

// writeLateDumps writes the late dumps of the version folder dir and reports whether it wrote any. A dump that
// cannot be written (RDF/XML cannot hold every graph) is logged and left out, as the render leaves it out; the
// handler then answers its media type with an error. lock: take the work lock to install (the background worker);
// a sync holds it already.
func (p *Pipeline) writeLateDumps(ctx context.Context, dir string, lock bool) bool {
	did, err := p.lateDumps(ctx, dir, lock)
	if err != nil && ctx.Err() == nil {
		p.o.Log.Warn("pipeline: late dumps not written", "folder", dir, "err", err)
	}
	return did
}

func (p *Pipeline) lateDumps(ctx context.Context, dir string, lock bool) (bool, error) {
	m, ok, err := tree.ReadLateDumps(dir)
	if err != nil || !ok {
		if err == nil {
			// Written, and the marker gone here; a latest folder's may be left by a stop in between.
			err = p.installLate(dir, "", "", nil, lock)
		}
		return false, err
	}
	dump, quads := p.termsDump(dir)
	if dump == "" {
		return false, nil // gone
	}
	srcName := "n-triples"
	if quads {
		srcName = "n-quads"
	}
	src, _ := p.o.Codecs.ByName(srcName)
	page, err := tree.ReadPage(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var written []string
	var errs []error
	for _, name := range lateSyntaxes {
		syn, ok := p.o.Codecs.ByName(name)
		if !ok || !slices.ContainsFunc(page.Formats, func(f tree.Format) bool { return f.Ext == syn.Extensions[0] }) {
			continue
		}
		file := tree.DataBase + syn.Extensions[0]
		if _, err := os.Lstat(filepath.Join(dir, file)); err == nil {
			continue // written before a stop
		}
		wrote, err := p.lateDump(ctx, dir, dump, file, src, syn, m, lock)
		if err != nil {
			if ctx.Err() != nil {
				return len(written) > 0, nil
			}
			errs = append(errs, fmt.Errorf("%s dump: %w", syn.Name, err))
			continue
		}
		if wrote {
			written = append(written, file)
		}
	}
	if ctx.Err() != nil {
		return len(written) > 0, nil
	}
	if err := p.installLate(dir, dump, "", nil, lock); err != nil {
		errs = append(errs, err)
	}
	if len(written) > 0 {
		// Their .gz siblings, as for the other dumps of a large version.
		if q := p.gz.Load(); q != nil && lock {
			q.add([]gzipJob{{dir: dir, files: written}})
		} else {
			p.gzipFolder(ctx, gzipJob{dir: dir, files: written}, lock)
		}
	}
	return len(written) > 0, errors.Join(errs...)
}

// lateDump writes one late dump of dir from its N-Triples or N-Quads dump and installs it.
func (p *Pipeline) lateDump(ctx context.Context, dir, dump, file string, src, dst codec.Syntax, m tree.LateDumpsMarker, lock bool) (bool, error) {
	in, err := os.Open(dump)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	tmp, err := writeBeside(dir, "dump-", fi, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 1<<16)
		if err := codec.Redump(ctx, src, dst, bufio.NewReaderSize(ctxReader{ctx, in}, 1<<20), w, m.Blanks, m.Prefixes); err != nil {
			return err
		}
		return w.Flush()
	})
	if tmp != "" {
		defer os.Remove(tmp) // unless renamed
	}
	if err != nil || tmp == "" {
		return false, err
	}
	return true, p.installLate(dir, dump, file, fi, lock, tmp)
}

// installLate renames tmp (written from dump, fi: its state when it was read) to dir/file and links it into every
// latest folder of the publication whose dump is the same file. Without a file (file ""), it removes the marker
// from dir and from those latest folders instead: every late dump is written. The caller holds the work lock
// unless lock is set.
func (p *Pipeline) installLate(dir, dump, file string, fi os.FileInfo, lock bool, tmp ...string) error {
	if lock {
		p.work.Lock()
		defer p.work.Unlock()
	}
	if dump == "" {
		if dump, _ = p.termsDump(dir); dump == "" {
			return nil
		}
	}
	now, err := os.Stat(dump)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi != nil && !os.SameFile(fi, now) {
		return fmt.Errorf("%s changed while read", dump)
	}
	if file != "" {
		if err := os.Rename(tmp[0], filepath.Join(dir, file)); err != nil {
			return err
		}
	} else {
		if err := fillLateSizes(dir); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(dir, tree.LateDumps)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	// dir is <meta>/v/<version>; the latest folders are <meta>/L-*.
	meta := filepath.Dir(filepath.Dir(dir))
	ents, err := os.ReadDir(meta)
	if err != nil {
		return err
	}
	name := filepath.Base(dump)
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
		if file != "" {
			if err := os.Link(filepath.Join(dir, file), filepath.Join(ld, file)); err != nil && !errors.Is(err, fs.ErrExist) {
				errs = append(errs, err)
			}
		} else if err := fillLateSizes(ld); err != nil {
			errs = append(errs, err)
		} else if err := os.Remove(filepath.Join(ld, tree.LateDumps)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fillLateSizes gives the formats of dir's page.json that were listed before their dump was written (size 0) the
// size of their file, and drops those whose dump could not be written (RDF/XML cannot hold every graph: the render
// leaves such a dump out too), replacing page.json whole with its time kept. It is called once every late dump
// was tried.
func fillLateSizes(dir string) error {
	name := filepath.Join(dir, tree.PageJSON)
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	page, err := tree.ReadPage(dir)
	if err != nil {
		return err
	}
	changed := false
	kept := page.Formats[:0]
	for _, f := range page.Formats {
		if f.Size == 0 {
			dfi, err := os.Stat(filepath.Join(dir, f.File()))
			if errors.Is(err, fs.ErrNotExist) {
				changed = true
				continue
			}
			if err != nil {
				return err
			}
			f.Size, changed = dfi.Size(), changed || dfi.Size() != 0
		}
		kept = append(kept, f)
	}
	page.Formats = kept
	if !changed {
		return nil
	}
	b, err := json.MarshalIndent(page, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(name, b, 0o644); err != nil {
		return err
	}
	return os.Chtimes(name, fi.ModTime(), fi.ModTime())
}
