package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// termBatch is how many term pages one Hugo build renders: a build's fixed cost is spread over many pages, and
// the pages' data waiting for it stays a few megabytes.
const termBatch = 2000

// termStats says what writeTermPages did, for logs and benchmarks.
type termStats struct {
	Terms, Rendered, Kept, Paged int
}

// writeTermPages pre-renders the term pages of the latest folder dir (staged; pg is its page): for every resource
// below the publication's URI that is the subject of a statement (tree.TermPages), its HTML page as the handler
// renders it for a reader without language preferences, and its description in each RDF format of the folder.
// A page whose fingerprint (its data, the theme's stamp, its RDF) equals the one in prev, the latest folder it
// replaces, is hard-linked from there instead of rendered again, so a new version costs what changed.
// Publications with named graphs are left to the handler (the web-server configurations serve only graphs).
func (p *Pipeline) writeTermPages(ctx context.Context, prev, dir string, pg *tree.Page) (termStats, error) {
	var st termStats
	if p.o.HTML == nil || !p.o.HTML.TermPages {
		return st, nil
	}
	var syns []codec.Syntax
	for _, f := range pg.Formats {
		syn, ok := p.o.Codecs.ByMediaType(f.MediaType)
		if !ok || !syn.CanEncode() || syn.Name == "trig" || syn.Name == "n-quads" {
			return st, nil
		}
		syns = append(syns, syn)
	}
	ds, err := index.Open(filepath.Join(dir, tree.Index))
	if err != nil {
		return st, err
	}
	defer ds.Close()
	if len(ds.GraphNames()) > 0 {
		return st, nil
	}
	names := termNames(ds, pg.URI+"/")
	if len(names) == 0 {
		return st, nil
	}
	st.Terms = len(names)
	out := filepath.Join(dir, tree.TermPages)
	if err := os.Mkdir(out, 0o755); err != nil {
		return st, err
	}
	var prevOut string
	if prev != "" {
		prevOut = filepath.Join(prev, tree.TermPages)
	}
	old := readTermSums(prevOut)
	var docs *html.TermDocs
	if f, err := os.Open(filepath.Join(dir, tree.Terms)); err == nil {
		docs, err = html.ReadTermDocs(bufio.NewReaderSize(f, 1<<16))
		f.Close()
		if err != nil {
			return st, fmt.Errorf("term pages: %w", err)
		}
	}
	lang := p.o.HTML.Language
	if lang == "" {
		lang = "en"
	}
	langs := html.LanguageOrder(lang)
	title := p.o.HTML.Title
	if strings.TrimSpace(title) == "" {
		title = "ldhub"
	}
	// Labels of other publications' IRIs come from their latest versions, each index opened once.
	opened := map[string]*index.Dataset{}
	defer func() {
		for _, ds := range opened {
			ds.Close()
		}
	}()
	foreign := &describe.Foreign{Root: tree.Root(p.o.Out, false), Base: p.o.BaseURL,
		Index: func(urlPath string) string {
			if dir := p.batch.stagedLatest[urlPath]; dir != "" {
				return filepath.Join(dir, tree.Index)
			}
			return ""
		},
		Open: func(path string) (*index.Dataset, func(), error) {
			if ds, ok := opened[path]; ok {
				return ds, func() {}, nil
			}
			ds, err := index.Open(path)
			if err != nil {
				return nil, nil, err
			}
			opened[path] = ds
			return ds, func() {}, nil
		}}
	hb := &html.Batch{Title: p.o.HTML.Title, Language: p.o.HTML.Language}
	var pending []string // the names of the pages in hb, in order
	flush := func() error {
		if hb.Len() == 0 {
			return nil
		}
		scratch, err := os.MkdirTemp(filepath.Dir(dir), tmpPrefix+"terms-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		if err := html.RenderBatch(ctx, hb, scratch, p.o.HTML.Themes...); err != nil {
			return fmt.Errorf("term pages: %w", err)
		}
		for i, name := range pending {
			if err := os.Rename(filepath.Join(scratch, "p"+strconv.Itoa(i), "index.html"), filepath.Join(out, name+".html")); err != nil {
				return err
			}
		}
		hb = &html.Batch{Title: p.o.HTML.Title, Language: p.o.HTML.Language}
		pending = pending[:0]
		return nil
	}
	sums := make([]string, 0, len(names))
	var buf bytes.Buffer
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if i := strings.LastIndexByte(name, '/'); i > 0 {
			if err := os.MkdirAll(filepath.Join(out, name[:i]), 0o755); err != nil {
				return st, err
			}
		}
		self := pg.Path + "/" + name
		d := describe.Describe(ds, pg.URI+"/"+name, 0, describe.PageSize)
		if d.More {
			// More references than a page holds: the page links the next one (rel="next" in its headers too),
			// which only the handler answers; the handler renders this one as well.
			st.Paged++
			continue
		}
		formats := make([]html.Dump, len(pg.Formats))
		for i, f := range pg.Formats {
			formats[i] = html.Dump{Format: f.Name, Ext: f.Ext, MediaType: f.MediaType, URL: self + f.Ext}
		}
		rp := describe.Page(ds, pg, d, describe.PageOptions{HubTitle: title, Self: self, PageSize: describe.PageSize,
			Formats: formats, Langs: langs, Docs: docs, Foreign: foreign})
		fp, err := html.ResourceFingerprint(rp)
		if err != nil {
			return st, err
		}
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00", p.batch.stamp, fp)
		rdfs := make([][]byte, len(syns))
		for i, syn := range syns {
			buf.Reset()
			if err := describe.Encode(&buf, syn, d); err != nil {
				return st, fmt.Errorf("term %s: %s: %w", name, syn.Name, err)
			}
			rdfs[i] = bytes.Clone(buf.Bytes())
			h.Write(rdfs[i])
		}
		sum := hex.EncodeToString(h.Sum(nil)[:16])
		sums = append(sums, sum+" "+name)
		if old[name] == sum && linkTerm(prevOut, out, name, pg.Formats) == nil {
			st.Kept++
			continue
		}
		for i, f := range pg.Formats {
			if err := os.WriteFile(filepath.Join(out, name+f.Ext), rdfs[i], 0o644); err != nil {
				return st, err
			}
		}
		if err := hb.Resource("p"+strconv.Itoa(len(pending)), rp); err != nil {
			return st, err
		}
		pending = append(pending, name)
		st.Rendered++
		if hb.Len() >= termBatch {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	if err := flush(); err != nil {
		return st, err
	}
	// The files carry the version's time, as the handler's answers do (Last-Modified, and nginx's ETag).
	err = filepath.WalkDir(out, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, pg.Modified, pg.Modified)
	})
	if err != nil {
		return st, err
	}
	return st, os.WriteFile(filepath.Join(out, tree.TermSums), []byte(strings.Join(sums, "\n")+"\n"), 0o644)
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

// readTermSums reads the fingerprints a latest folder's term pages were rendered with (none when it has none).
func readTermSums(dir string) map[string]string {
	out := map[string]string{}
	if dir == "" {
		return out
	}
	b, err := os.ReadFile(filepath.Join(dir, tree.TermSums))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if sum, name, ok := strings.Cut(line, " "); ok {
			out[name] = sum
		}
	}
	return out
}

// linkTerm hard-links a term's files from the previous latest folder's pages.
func linkTerm(from, to, name string, formats []tree.Format) error {
	exts := []string{".html"}
	for _, f := range formats {
		exts = append(exts, f.Ext)
	}
	for i, ext := range exts {
		if err := os.Link(filepath.Join(from, name+ext), filepath.Join(to, name+ext)); err != nil {
			// The page is rendered afresh; links made so far must go first, since writing through one would
			// change the previous folder's file.
			for _, e := range exts[:i] {
				os.Remove(filepath.Join(to, name+e))
			}
			return err
		}
	}
	return nil
}
