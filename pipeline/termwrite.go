package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// termWrite is one term-page job writing the pages of a latest folder (writeTermPages): what it reads once, and
// the batch of pages it is rendering.
type termWrite struct {
	p       *Pipeline
	j       *termJob
	out     string // the folder's term pages (tree.TermPages)
	ds      *index.Dataset
	syns    []codec.Syntax // the folder's RDF formats, in pg.Formats order
	exts    []string       // ".html", then each format's extension
	doc     *vocab.Doc     // terms.json; nil when the version defines nothing
	docs    *html.TermDocs
	langs   []string
	title   string
	foreign *describe.Foreign
	opened  map[string]*index.Dataset // other publications' indexes, for their labels
	used    map[string]string         // their URL paths, each with its live latest folder when first asked
	own     map[string]string         // a resumed job's pages in place
	sources []termSource
	part    *os.File
	rr      *html.PageRenderer
	// The batch being rendered: its files are staged in scratch, then renamed into place; its lines go to termPart
	// after that. Its pages are rendered on one Hugo site kept for the whole job, in memory.
	scratch string
	hb      []*html.ResourcePage // the pages to render, of the terms in pending
	pending []string             // names of the pages in hb, in order
	staged  []stagedFile
	lines   []string
	sums    []string
	buf     bytes.Buffer
	st      TermPageStats
}

// writeTermPages pre-renders the term pages of the live latest folder j.dir: for every resource below the
// publication's URI that is the subject of a statement (tree.TermPages), its HTML page as the handler renders it
// for a reader without language preferences, and its description in each RDF format of the folder. A page whose
// fingerprint (its data, the theme's stamp, its RDF) equals the one a source folder lists is hard-linked from there
// instead of rendered again, so a new version costs what changed; and when a source's pages were written on the
// same basis (termBasis), only the terms the versions' difference may have changed are described and fingerprinted
// (termChanges), the others linked at once. Publications with named graphs are left to the handler (the
// web-server configurations serve only graphs), but get an empty TermSums, so that they are not queued again.
func (p *Pipeline) writeTermPages(ctx context.Context, j *termJob) (TermPageStats, error) {
	w := &termWrite{p: p, j: j, out: filepath.Join(j.dir, tree.TermPages), used: map[string]string{}, opened: map[string]*index.Dataset{}}
	defer w.close()
	ok, err := w.open()
	if err != nil || !ok {
		return w.st, err
	}
	names := termNames(w.ds, j.page.URI+"/")
	w.st.Terms = len(names)
	if len(names) == 0 {
		return w.st, w.finish(nil)
	}
	if err := w.prepare(); err != nil {
		return w.st, err
	}
	recheck, baseSums, err := w.recheck(ctx)
	if err != nil {
		return w.st, err
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return w.st, err
		}
		if err := w.term(ctx, name, recheck, baseSums); err != nil {
			return w.st, err
		}
	}
	if err := w.flush(ctx); err != nil {
		return w.st, err
	}
	return w.st, w.finish(w.sums)
}

// open makes the folder ready and opens its index; ok is false (the empty fingerprint list written) when the
// folder gets no term pages: a format the pages cannot be written in, or named graphs.
func (w *termWrite) open() (ok bool, err error) {
	if err := os.MkdirAll(w.out, 0o755); err != nil {
		return false, err
	}
	// Files are staged inside the live folder (same file system, so placing one is a rename; no server serves a
	// dot name, and the handler's watch is on the publication's folder, which staging there would wake). What a
	// job killed half-way left there goes now, and so does the basis the folder's pages were written on: until
	// this job ends they may be of either.
	if left, err := filepath.Glob(filepath.Join(w.j.dir, tmpPrefix+"*")); err == nil {
		for _, l := range left {
			_ = os.RemoveAll(l)
		}
	}
	if err := removeBasis(w.out); err != nil {
		return false, err
	}
	for _, f := range w.j.page.Formats {
		syn, ok := w.p.o.Codecs.ByMediaType(f.MediaType)
		if !ok || !syn.CanEncode() || syn.Name == "trig" || syn.Name == "n-quads" {
			return false, w.finish(nil)
		}
		w.syns = append(w.syns, syn)
	}
	if w.ds, err = index.Open(filepath.Join(w.j.dir, tree.Index)); err != nil {
		return false, err
	}
	if len(w.ds.GraphNames()) > 0 {
		return false, w.finish(nil)
	}
	return true, nil
}

// prepare reads what every page of the job shows (terms.json, the hub's language and title, other publications'
// labels) and opens the renderer and the list of pages in place.
func (w *termWrite) prepare() error {
	w.own = readTermSums(w.out)
	for _, s := range w.j.sources {
		if s != w.j.dir {
			w.sources = append(w.sources, termSource{filepath.Join(s, tree.TermPages), readTermSums(filepath.Join(s, tree.TermPages))})
		}
	}
	var err error
	if w.doc, err = w.p.docs.read(w.j.dir); err != nil {
		return fmt.Errorf("term pages: terms: %w", err)
	}
	if w.doc != nil {
		w.docs = html.NewTermDocs(w.doc)
	}
	o := w.p.o
	w.langs = html.LanguageOrder(cmp.Or(o.HTML.Language, "en"))
	w.title = o.HTML.Title
	if strings.TrimSpace(w.title) == "" {
		w.title = "ldhub"
	}
	// Labels of other publications' IRIs come from their live latest versions, each index opened once.
	w.foreign = &describe.Foreign{Root: tree.Root(o.Out, false), Base: o.BaseURL,
		Used: func(urlPath string) {
			if _, ok := w.used[urlPath]; !ok && urlPath != w.j.page.Path {
				w.used[urlPath] = w.p.liveFolder(urlPath)
			}
		},
		Open: func(path string) (*index.Dataset, func(), error) {
			if ds, ok := w.opened[path]; ok {
				return ds, func() {}, nil
			}
			ds, err := index.Open(path)
			if err != nil {
				return nil, nil, err
			}
			w.opened[path] = ds
			return ds, func() {}, nil
		}}
	w.exts = []string{".html"}
	for _, f := range w.j.page.Formats {
		w.exts = append(w.exts, f.Ext)
	}
	if w.part, err = os.OpenFile(filepath.Join(w.out, termPart), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return err
	}
	w.rr = html.NewPageRenderer(o.HTML.Title, o.HTML.Language, o.HTML.Themes...)
	w.sums = make([]string, 0, len(w.own))
	return nil
}

// close releases what the job opened and removes its staging folder.
func (w *termWrite) close() {
	if w.scratch != "" {
		os.RemoveAll(w.scratch)
	}
	if w.rr != nil {
		w.rr.Close()
	}
	if w.part != nil {
		w.part.Close()
	}
	for _, ds := range w.opened {
		ds.Close()
	}
	if w.ds != nil {
		w.ds.Close()
	}
}

// finish writes the folder's lists once all its pages are in place: the other publications whose labels they show
// (termForeign), the fingerprints (TermSums; sums nil: the folder gets no pages), and the basis they were written
// on, for the next version's job.
func (w *termWrite) finish(sums []string) error {
	j := w.j
	for u := range w.used {
		j.used = append(j.used, u)
	}
	slices.Sort(j.used)
	if len(j.used) == 0 {
		if err := os.Remove(filepath.Join(w.out, termForeign)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	} else if err := atomicfile.WriteFile(filepath.Join(w.out, termForeign), []byte(strings.Join(j.used, "\n")), 0o644); err != nil {
		return err
	}
	if sums != nil {
		if err := w.writeBasis(); err != nil {
			return err
		}
	}
	err := atomicfile.WriteFile(filepath.Join(w.out, tree.TermSums), []byte(strings.Join(sums, "")), 0o644)
	if err == nil {
		_ = os.Remove(filepath.Join(w.out, termPart))
	}
	return err
}

// pageOptions are what the page of the term at URL path self shows besides its description.
func (w *termWrite) pageOptions(self string, foreign *describe.Foreign) describe.PageOptions {
	formats := make([]html.Dump, len(w.j.page.Formats))
	for i, f := range w.j.page.Formats {
		formats[i] = html.Dump{Format: f.Name, Ext: f.Ext, MediaType: f.MediaType, URL: self + f.Ext}
	}
	return describe.PageOptions{HubTitle: w.title, Self: self, PageSize: describe.PageSize, Formats: formats,
		Langs: w.langs, Docs: w.docs, Foreign: foreign}
}

// term puts the files of the term called name in place: linked from an earlier folder when its page cannot have
// changed (recheck, when set, does not name it and the basis folder has it) or its fingerprint is unchanged,
// else rendered.
func (w *termWrite) term(ctx context.Context, name string, recheck map[string]bool, baseSums map[string]string) error {
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		if err := os.MkdirAll(filepath.Join(w.out, name[:i]), 0o755); err != nil {
			return err
		}
	}
	if sum, ok := baseSums[name]; ok && recheck != nil && !recheck[name] {
		if kept, err := w.keep(name, sum); err != nil || kept {
			return err
		}
	}
	rp, d, sum, err := w.describe(name)
	if err != nil || rp == nil {
		return err
	}
	if kept, err := w.keep(name, sum); err != nil || kept {
		return err
	}
	return w.stage(ctx, name, sum, d, rp)
}

// describe describes the term called name and makes its page's data and fingerprint; rp is nil for a term with more
// references than a page holds: the page links the next one (rel="next" in its headers too), which only the
// handler answers, so the handler renders this one as well.
func (w *termWrite) describe(name string) (rp *html.ResourcePage, d describe.Description, sum string, err error) {
	w.st.Described++
	d = describe.Describe(w.ds, w.j.page.URI+"/"+name, 0, describe.PageSize)
	if d.More {
		w.st.Paged++
		return nil, d, "", nil
	}
	rp = describe.Page(w.ds, &w.j.page, d, w.pageOptions(w.j.page.Path+"/"+name, w.foreign))
	fp, err := html.ResourceFingerprint(rp)
	if err != nil {
		return nil, d, "", err
	}
	// The fingerprint covers the page's data and the description's statements themselves, not their encodings:
	// encoding four syntaxes was most of what finding the few changed pages of a new version cost, and the
	// files are a function of the statements (termSumScheme names the encoders' generation).
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", termSumScheme, w.j.stamp, fp)
	hashQuads(h, d.Out)
	hashQuads(h, d.In)
	return rp, d, hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// keep puts the term's files in place from a folder that has them with this fingerprint (this folder, for a
// resumed job, or a source), and reports whether it did.
func (w *termWrite) keep(name, sum string) (bool, error) {
	line := sum + " " + name + "\n"
	if w.own[name] == sum && termInPlace(w.out, name, w.exts) {
		w.st.Kept++
		w.sums = append(w.sums, line)
		return true, nil
	}
	if kept, err := linkInPlace(w.sources, w.out, name, sum, w.exts, w.j.page.Modified); err != nil || kept {
		if kept {
			w.st.Kept++
			w.sums = append(w.sums, line)
			w.lines = append(w.lines, line)
		}
		return kept, err
	}
	for _, s := range w.sources {
		if s.sums[name] != sum {
			continue
		}
		if err := w.stageDir(); err != nil {
			return false, err
		}
		if linkTerm(s.dir, w.scratch, name, w.exts) != nil {
			continue
		}
		for _, ext := range w.exts {
			if err := w.place(filepath.Join(w.scratch, "link"+ext), name, ext); err != nil {
				return false, err
			}
		}
		w.st.Kept++
		w.sums = append(w.sums, line)
		w.lines = append(w.lines, line)
		return true, nil
	}
	return false, nil
}

// stage writes the term's description in each RDF format into the staging folder and queues its page for the
// batch's render, rendering the batch when it is full.
func (w *termWrite) stage(ctx context.Context, name, sum string, d describe.Description, rp *html.ResourcePage) error {
	if err := w.stageDir(); err != nil {
		return err
	}
	for i, f := range w.j.page.Formats {
		w.buf.Reset()
		if err := describe.Encode(&w.buf, w.syns[i], d); err != nil {
			return fmt.Errorf("term %s: %s: %w", name, w.syns[i].Name, err)
		}
		file := "r" + strconv.Itoa(len(w.staged))
		if err := os.WriteFile(filepath.Join(w.scratch, file), w.buf.Bytes(), 0o644); err != nil {
			return err
		}
		w.staged = append(w.staged, stagedFile{file, name, f.Ext})
	}
	line := sum + " " + name + "\n"
	w.hb = append(w.hb, rp)
	w.pending = append(w.pending, name)
	w.lines = append(w.lines, line)
	w.sums = append(w.sums, line)
	w.st.Rendered++
	if len(w.hb) >= termBatch {
		return w.flush(ctx)
	}
	return nil
}

// stageDir makes the staging folder of the batch, once.
func (w *termWrite) stageDir() error {
	if w.scratch != "" {
		return nil
	}
	var err error
	w.scratch, err = os.MkdirTemp(w.j.dir, tmpPrefix+"terms-")
	return err
}

// place renames a staged file into place as the term's file with extension ext.
func (w *termWrite) place(from, name, ext string) error {
	to := filepath.Join(w.out, name+ext)
	// A file carries its version's time (Last-Modified, and the web servers' ETag), unless it replaces one
	// (labels of another publication changed): then its own, so that the validators change with the bytes.
	mod := w.j.page.Modified
	if _, err := os.Lstat(to); err == nil {
		mod = time.Now()
	}
	if err := os.Chtimes(from, mod, mod); err != nil {
		return err
	}
	return os.Rename(from, to)
}

// flush renders the batch's pages, puts its files in place and adds its lines to termPart.
func (w *termWrite) flush(ctx context.Context) error {
	if w.scratch == "" {
		_, err := w.part.WriteString(strings.Join(w.lines, ""))
		w.lines = w.lines[:0]
		return err
	}
	defer func() { os.RemoveAll(w.scratch); w.scratch = "" }()
	var pages [][]byte
	if len(w.hb) > 0 {
		if w.j.hook != nil {
			w.j.hook()
		}
		var err error
		if pages, err = w.rr.Render(ctx, w.hb); err != nil {
			return fmt.Errorf("term pages: %w", err)
		}
	}
	for _, s := range w.staged {
		if err := w.place(filepath.Join(w.scratch, s.file), s.name, s.ext); err != nil {
			return err
		}
	}
	for i, name := range w.pending {
		file := filepath.Join(w.scratch, "p"+strconv.Itoa(i)+".html")
		if err := os.WriteFile(file, pages[i], 0o644); err != nil {
			return err
		}
		if err := w.place(file, name, ".html"); err != nil {
			return err
		}
	}
	if _, err := w.part.WriteString(strings.Join(w.lines, "")); err != nil {
		return err
	}
	w.hb, w.pending, w.staged, w.lines = nil, w.pending[:0], w.staged[:0], w.lines[:0]
	return nil
}

// liveFolder is the name of the live latest folder of the public publication at urlPath ("" when none).
func (p *Pipeline) liveFolder(urlPath string) string {
	cur, _ := os.Readlink(filepath.Join(tree.PubDir(tree.Root(p.o.Out, false), urlPath), tree.Current))
	return cur
}
