package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/theme"
)

// HTML configures the pages the pipeline renders with Hugo (site/html): the page of every publication and version,
// and the hub, group and repository pages, which go to PagesDir.
type HTML struct {
	Title    string   // the hub's name
	Language string   // BCP 47 tag of the page texts; "en" when empty
	Themes   []string // publishers' theme folders laid over the default theme, later ones winning
	// TermPages pre-renders, in each publication's latest folder, the page and the RDF descriptions of every
	// resource below its URI (tree.TermPages), so that the static tree alone dereferences its terms.
	TermPages bool
	// TermsPerPage is the number of terms on each page of a section's full listing, rendered beside a page that
	// cannot document every term (html.SectionPages; tree.SectionPage); html.DefaultTermsPerPage when 0.
	TermsPerPage int
}

// LoadTheme reads a publisher's theme folder ("" for none): its Hugo layouts and static files, for the pages the
// pipeline renders and for the resource pages the handler renders on request. The theme is checked now, so that a
// broken layout stops ldhub instead of failing every sync or request.
func LoadTheme(ctx context.Context, dir string) (*HTML, error) {
	opts := &HTML{}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("theme: %w", err)
		}
		opts.Themes = []string{abs}
	}
	if err := html.CheckTheme(ctx, opts.Themes...); err != nil {
		return nil, fmt.Errorf("theme %s: %w", dir, err)
	}
	return opts, nil
}

// SetLanguage sets the hub's language (a BCP 47 tag; "" keeps English): the pages' texts and the language their
// labels and definitions are shown in first, before English and untagged text, to readers who ask for none the
// data has.
func (h *HTML) SetLanguage(tag string) error {
	if tag != "" && (!codec.IsLanguageTag(tag) || codec.LanguageKey(tag) == "") {
		return fmt.Errorf("language %q is not a language tag (such as en or pt-BR)", tag)
	}
	h.Language = tag
	return nil
}

// PagesDir is where the pipeline writes the hub, group and repository pages (<path>/index.html). Only public
// content goes there: serve it as site.Options.Pages.
func PagesDir(out string) string { return filepath.Join(out, "pages") }

// A Hugo build costs tens of milliseconds before its first page, so pages are not rendered one by one: a sync
// stages every folder it writes (a version's, a new latest) under a temporary name, collects their pages, renders
// all of them (and the index pages) with one build, writes each page into its staged folder, and only then renames
// the folders into place and switches the latest symlinks. Readers see a folder complete with its page or not at
// all, as before.
type pageBatch struct {
	jobs    []pageJob
	staged  map[string]string // final folder -> staged temporary folder
	tmps    map[string]bool   // staged temporary folders, removed unless committed
	commits []func() error    // renames and switches, in order, run once the pages are written
	latest  map[string]*tree.Page
	triples map[string]int    // version id -> triples, for the version lists
	names   map[string]string // groupNames, read by commitPages for this sync's pages and index pages
	stamp   string            // fingerprint of the theme (see pagesStamp)
	repage  bool              // the repository's pages were rendered with another theme: render them all again
	gzip    []gzipJob         // .gz siblings to write once the folders are in place (gzip.go)
	later   []laterPage       // pages to render with their documentation once the folders are in place (later.go)
	terms   []termsJob        // terms.json to write once the folders are in place, before the later pages (terms.go)
	dumps   []string          // version folders whose late dumps are written once the folders are in place (dumps.go)
	final   map[string]string // staged folder -> the folder it becomes
}

type pageJob struct {
	dir  string
	page tree.Page
	nav  *versionNav // a version page's place among the versions; nil for the latest folder's page
	// later: the page documents a large vocabulary and is rendered after the switch (later.go); a staged folder
	// gets a page without the documentation now, a live one keeps its page until then.
	later bool
	// langs are the keys of the page's language variants (html.PageLanguages), rendered besides the page in the
	// hub's language; hub is the hub language's key, under which that page is linked too when there are variants.
	langs []string
	hub   string
	// listings are the pages of the page's sections' full listings, rendered in builds of their own.
	listings *listings
}

// versionNav is what a version page links besides itself.
type versionNav struct {
	prev, next *tree.Version
	latest     bool
}

func (p *Pipeline) beginPages() {
	p.batch = &pageBatch{staged: map[string]string{}, tmps: map[string]bool{}, latest: map[string]*tree.Page{}, final: map[string]string{},
		triples: map[string]int{}}
	if p.o.HTML != nil {
		p.batch.stamp = p.pagesStamp()
	}
}

// pagesFormat changes whenever the page data handed to the theme changes shape, so that pages written by an
// older ldhub are rendered again.
const pagesFormat = "hugo-3"

// pagesStamp fingerprints what pages depend on besides the data: the default theme, the publishers' overrides,
// the title and the language. A publisher who changes the theme sees every page in it at the next sync.
func (p *Pipeline) pagesStamp() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", pagesFormat, p.o.HTML.Title, p.o.HTML.Language)
	b, err := embeddedTheme()
	h.Write(b)
	for _, o := range p.o.HTML.Themes {
		err = errors.Join(err, hashFS(h, os.DirFS(o)))
	}
	if err != nil {
		// Unreadable overrides fail the build anyway; an empty stamp renders everything again next time.
		p.o.Log.Warn("pipeline: theme fingerprint", "err", err)
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// embeddedTheme is what pagesStamp hashes of the default theme, which cannot change while ldhub runs. It keeps the
// bytes rather than their digest so that the stamps stay those written before (another stamp renders every page
// again).
var embeddedTheme = sync.OnceValues(func() ([]byte, error) {
	var b bytes.Buffer
	err := hashFS(&b, theme.Hugo())
	return b.Bytes(), err
})

// hashFS writes the name, size and contents of every file of fsys to w, for a fingerprint.
func hashFS(w io.Writer, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, name)
		fmt.Fprintf(w, "%s\x00%d\x00", name, len(b))
		w.Write(b)
		return err
	})
}

// restamp compares the theme the repository's pages were rendered with to the current one; when they differ every
// publication is rendered again (its latest folder anew, its version folders only their pages).
func (p *Pipeline) restamp(st *repoState) {
	if p.o.HTML == nil || st.Pages == p.batch.stamp && p.batch.stamp != "" {
		return
	}
	p.batch.repage = true
	for id, ps := range st.Publications {
		ps.Key = ""
		st.Publications[id] = ps
	}
}

// repage queues a new page for an existing version folder when the theme changed; the page replaces the old one
// with a rename.
func (p *Pipeline) repage(dir string, page *tree.Page) error {
	if p.o.HTML == nil || !p.batch.repage {
		return nil
	}
	return p.addPage(dir, page)
}

// endPages removes whatever the batch staged but did not commit (a failed sync leaves nothing behind).
func (p *Pipeline) endPages() {
	for tmp := range p.batch.tmps {
		_ = os.RemoveAll(tmp)
	}
	p.batch = nil
}

// drop removes a temporary folder unless it was staged.
func (b *pageBatch) drop(tmp string) {
	if !b.tmps[tmp] {
		_ = os.RemoveAll(tmp)
	}
}

// rename stages tmp to become dir at commit.
func (b *pageBatch) rename(tmp, dir string) {
	b.tmps[tmp] = true
	b.staged[dir] = tmp
	b.final[tmp] = dir
	b.then(func() error {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		delete(b.tmps, tmp)
		return nil
	})
}

// resolve is where the files of dir are now: its staged folder until the commit.
func (b *pageBatch) resolve(dir string) string {
	if t, ok := b.staged[dir]; ok {
		return t
	}
	return dir
}

func (b *pageBatch) then(f func() error) { b.commits = append(b.commits, f) }

// addPage records that dir (a staged folder) needs the HTML page of page.
func (p *Pipeline) addPage(dir string, page *tree.Page) error {
	if p.batch == nil {
		return errors.New("pipeline: a page outside a sync")
	}
	p.batch.jobs = append(p.batch.jobs, pageJob{dir: dir, page: *page})
	return nil
}

// navVersions gives the version pages queued since job start their neighbours among versions (oldest first), and
// queues again the pages of the existing neighbours of a new version, whose links it changes.
func (p *Pipeline) navVersions(start int, versions []tree.Version, latest, vroot string) error {
	if p.o.HTML == nil || p.batch == nil {
		return nil
	}
	at := map[string]int{}
	for i, v := range versions {
		at[v.ID] = i
	}
	nav := func(i int) *versionNav {
		n := &versionNav{latest: versions[i].ID == latest}
		if i > 0 {
			n.prev = &versions[i-1]
		}
		if i+1 < len(versions) {
			n.next = &versions[i+1]
		}
		return n
	}
	queued := map[int]bool{}
	end := len(p.batch.jobs)
	for k := start; k < end; k++ {
		j := &p.batch.jobs[k]
		if i, ok := at[j.page.Version.ID]; ok && !j.page.Latest {
			j.nav = nav(i)
			queued[i] = true
		}
	}
	for i := range queued {
		for _, n := range []int{i - 1, i + 1} {
			if n < 0 || n >= len(versions) || queued[n] {
				continue
			}
			queued[n] = true
			dir := filepath.Join(vroot, path.Base(versions[n].URL))
			b, err := os.ReadFile(filepath.Join(dir, tree.PageJSON))
			if err != nil {
				continue // not rendered (yet): nothing to link
			}
			var pg tree.Page
			if json.Unmarshal(b, &pg) != nil || pg.Version.ID != versions[n].ID {
				continue
			}
			p.batch.jobs = append(p.batch.jobs, pageJob{dir: dir, page: pg, nav: nav(n)})
		}
	}
	return nil
}

// indexPage is a hub, group or repository page: its URL path ("/", "/g/", "/g/r/").
type indexPage struct{ url string }

// commitPages renders the batch's pages (and index, the index pages to add to it; nil for none), writes each into
// its staged folder, then runs the commits. A failed build commits nothing.
func (p *Pipeline) commitPages(ctx context.Context, index func(*html.Batch) ([]indexPage, []string, error)) error {
	b := p.batch
	var pages []indexPage
	var remove []string
	scratch := ""
	if p.o.HTML != nil && (len(b.jobs) > 0 || index != nil) {
		hb := &html.Batch{Title: p.o.HTML.Title, Language: p.o.HTML.Language, TermsPerPage: p.o.HTML.TermsPerPage}
		b.names = p.groupNames(ctx)
		background := p.gz.Load() != nil
		for i := range b.jobs {
			j := &b.jobs[i]
			pp := publicationPage(&j.page, b.triples, b.names)
			if j.nav != nil {
				pp.LatestVersion = j.nav.latest
				if v := j.nav.prev; v != nil {
					pp.Prev = html.Crumb{Name: v.Label, Href: v.URL}
					pp.Delta = "/api/v3/publications.delta?version1=" + url.QueryEscape(v.ID) + "&version2=" +
						url.QueryEscape(j.page.Version.ID)
				}
				if v := j.nav.next; v != nil {
					pp.Next = html.Crumb{Name: v.Label, Href: v.URL}
				}
			}
			final, staged := b.final[j.dir]
			if !staged {
				final = j.dir
			}
			if background && heavyDoc(j.dir) {
				p.queueLater(final, j.page.RepositoryID, pp, j.page.Modified)
				if !staged {
					j.later = true // the live page stays until the documented one replaces it
					continue
				}
			} else {
				p.bumpPage(final)
				pp.Vocab = p.readTerms(j.dir)
			}
			var err error
			if j.langs, j.hub, j.listings, err = p.addPublication(hb, i, pp); err != nil {
				return fmt.Errorf("pipeline: page of %s: %w", j.page.Self, err)
			}
		}
		if index != nil {
			var err error
			if pages, remove, err = index(hb); err != nil {
				return err
			}
		}
		var err error
		if scratch, err = os.MkdirTemp(p.o.Out, tmpPrefix+"html-"); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		defer os.RemoveAll(scratch)
		if err := p.renderBatch(ctx, hb, scratch); err != nil {
			return err
		}
	}
	var errs []error
	for _, c := range b.commits {
		if err := c(); err != nil {
			errs = append(errs, err)
		}
	}
	// Index pages last: they link what the commits just put in place.
	if err := p.publishIndex(scratch, pages); err != nil {
		errs = append(errs, err)
	}
	for _, u := range remove {
		if err := p.removeIndexPage(u); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("pipeline: commit: %w", errors.Join(errs...))
	}
	p.startDumps(ctx, b.dumps)
	b.dumps = nil
	p.startTerms(ctx, b.terms)
	b.terms = nil
	p.startLater(b.later)
	b.later = nil
	p.startGzip(ctx, b.gzip)
	b.gzip = nil
	return nil
}

// removeIndexPage removes the page of a group or repository that is gone or no longer public.
func (p *Pipeline) removeIndexPage(urlPath string) error {
	if strings.Trim(urlPath, "/") == "" {
		return nil
	}
	err := os.Remove(filepath.Join(PagesDir(p.o.Out), filepath.FromSlash(strings.Trim(urlPath, "/")), tree.PageHTML))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pipeline: %w", err)
	}
	return nil
}

// renderBatch builds the pages into scratch, a folder beside the tree (so that moving them is a rename), and moves
// each publication page into its staged folder.
func (p *Pipeline) renderBatch(ctx context.Context, hb *html.Batch, scratch string) error {
	if err := html.RenderBatch(ctx, hb, scratch, p.o.HTML.Themes...); err != nil {
		return fmt.Errorf("pipeline: pages: %w", err)
	}
	for _, j := range p.batch.jobs {
		if err := p.renderListings(ctx, hb, j.listings, scratch); err != nil {
			return fmt.Errorf("pipeline: page of %s: %w", j.page.Self, err)
		}
	}
	for i, j := range p.batch.jobs {
		if j.later {
			continue
		}
		to := filepath.Join(j.dir, tree.PageHTML)
		if err := os.Rename(filepath.Join(scratch, "p", strconv.Itoa(i), tree.PageHTML), to); err != nil {
			return fmt.Errorf("pipeline: page of %s: %w", j.page.Self, err)
		}
		// The folder's files carry its version's time (Last-Modified); the page is one of them.
		if err := os.Chtimes(to, j.page.Modified, j.page.Modified); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		if err := placeVariants(scratch, i, j.dir, j.langs, j.hub, j.page.Modified); err != nil {
			return fmt.Errorf("pipeline: page of %s: %w", j.page.Self, err)
		}
	}
	return nil
}

// addPublication adds the i-th publication or version page of a batch to hb: the page in the hub's language (at
// p/<i>) and, when its documentation has texts in other languages, one page per language (html.PageLanguages, at
// l/<i>/<key>), each with the language switch. It returns the languages' keys and the hub language's, and the
// pages of the sections' full listings that the page links (nil: none), which renderListings renders apart.
func (p *Pipeline) addPublication(hb *html.Batch, i int, pp html.PublicationPage) (langs []string, hub string, ls *listings, err error) {
	if langs = html.PageLanguages(pp.Vocab, p.o.HTML.Language); len(langs) > 0 {
		hub = codec.LanguageKey(cmp.Or(p.o.HTML.Language, "en"))
		pp.Languages = append([]string{hub}, langs...)
		slices.Sort(pp.Languages)
	}
	if err := hb.Publication("p/"+strconv.Itoa(i), pp); err != nil {
		return nil, "", nil, err
	}
	// The labels index of each language's page, for the filter of a page that leaves terms out (placeVariants
	// finds them in the scratch folder).
	if err := hb.LabelsIndex(labelsOut(i, ""), pp); err != nil {
		return nil, "", nil, err
	}
	for _, l := range langs {
		pl := pp
		pl.Language = l
		if err := hb.Publication("l/"+strconv.Itoa(i)+"/"+l, pl); err != nil {
			return nil, "", nil, fmt.Errorf("in %s: %w", l, err)
		}
		if err := hb.LabelsIndex(labelsOut(i, l), pl); err != nil {
			return nil, "", nil, fmt.Errorf("in %s: %w", l, err)
		}
	}
	if tps := html.SectionPages(pp.Vocab, p.o.HTML.TermsPerPage); len(tps) > 0 {
		ls = &listings{i: i, pp: pp, langs: langs, pages: tps}
	}
	return langs, hub, ls, nil
}

// listings are the pages of the full listing of each section of the i-th page of a batch (pp), in each language
// of the page (the hub's and langs), when the page cannot document every term.
type listings struct {
	i     int
	pp    html.PublicationPage
	langs []string
	pages []html.TermsPage
}

// listingTermsPerBuild bounds the terms of the listing pages one Hugo build renders. Hugo holds every page of a
// build at once, each as its front matter's JSON decoded into maps and its output: about 7 MB a listing page of
// 1 000 terms, so that the 300 listing pages of a 300 000-concept vocabulary in one build took the server to
// 6.4 GB. In builds of 8 000 terms the listing pages cost about 60 MB whatever the vocabulary's size, for one
// more build (about 0.1 CPU-s) per eight pages.
const listingTermsPerBuild = 8000

// renderListings renders ls's pages (placeVariants finds them in the scratch folder) in builds of at most
// listingTermsPerBuild terms, each a batch following hb (so the vocabulary is laid out once). Each build's pages
// are made as it starts, so that the views of only one build are held.
func (p *Pipeline) renderListings(ctx context.Context, hb *html.Batch, ls *listings, scratch string) error {
	if ls == nil {
		return nil
	}
	keys := append([]string{""}, ls.langs...)
	per := max(1, listingTermsPerBuild/cmp.Or(p.o.HTML.TermsPerPage, html.DefaultTermsPerPage)/len(keys))
	for tps := ls.pages; len(tps) > 0; tps = tps[min(per, len(tps)):] {
		b := hb.Next()
		for _, tp := range tps[:min(per, len(tps))] {
			for _, l := range keys {
				ps := ls.pp
				ps.Terms, ps.Language = tp, l
				if err := b.Publication(sectionOut(ls.i, l, tp.Section, tp.N), ps); err != nil {
					return fmt.Errorf("terms %s page %d %s: %w", tp.Section, tp.N, l, err)
				}
			}
		}
		if err := html.RenderBatch(ctx, b, scratch, p.o.HTML.Themes...); err != nil {
			return err
		}
	}
	return nil
}

// labelsOut is where addPublication writes the labels index of the i-th page in the language of key ("": the
// hub's).
func labelsOut(i int, key string) string {
	return strings.TrimSuffix("x/"+strconv.Itoa(i)+"/"+cmp.Or(key, "-hub"), "/")
}

// sectionOut is where addPublication renders page n of section of the i-th page in the language of key ("": the
// hub's).
func sectionOut(i int, key, section string, n int) string {
	if key == "" {
		return "s/" + strconv.Itoa(i) + "/" + section + "/" + strconv.Itoa(n)
	}
	return "r/" + strconv.Itoa(i) + "/" + key + "/" + section + "/" + strconv.Itoa(n)
}

// placeVariants moves the language variants of the i-th page rendered into scratch (addPublication) into dir
// beside the page (tree.PageVariant), links the page under the hub language's key when there are variants, and
// removes the variants the folder had and the page no longer has (a repage after the hub's language or the data's
// languages changed). The pages of the sections' full listings (tree.SectionPageIn, in each language) and the
// labels indexes (tree.LabelsIndex) are placed and pruned the same way. The files get the version's time.
func placeVariants(scratch string, i int, dir string, langs []string, hub string, modified time.Time) error {
	keepSection := map[string]bool{}
	for _, l := range append([]string{""}, langs...) {
		from := filepath.Dir(filepath.Dir(filepath.Join(scratch, filepath.FromSlash(sectionOut(i, l, "s", 1)))))
		sections, err := os.ReadDir(from)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for _, s := range sections {
			pages, err := os.ReadDir(filepath.Join(from, s.Name()))
			if err != nil {
				return err
			}
			for _, pg := range pages {
				n, err := strconv.Atoi(pg.Name())
				if err != nil {
					return err
				}
				name := tree.SectionPageIn(s.Name(), n, l)
				to := filepath.Join(dir, name)
				if err := os.Rename(filepath.Join(from, s.Name(), pg.Name(), tree.PageHTML), to); err != nil {
					return err
				}
				if err := os.Chtimes(to, modified, modified); err != nil {
					return err
				}
				keepSection[name] = true
			}
		}
	}
	for _, l := range append([]string{""}, langs...) {
		for _, gz := range []string{"", ".gz"} {
			from := filepath.Join(scratch, filepath.FromSlash(labelsOut(i, l)), "labels.json"+gz)
			name := tree.LabelsIndex(l) + gz
			to := filepath.Join(dir, name)
			if err := os.Rename(from, to); errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return err
			}
			if err := os.Chtimes(to, modified, modified); err != nil {
				return err
			}
			keepSection[name] = true
		}
	}
	keep := map[string]bool{}
	for _, l := range langs {
		to := filepath.Join(dir, tree.PageVariant(l))
		if err := os.Rename(filepath.Join(scratch, "l", strconv.Itoa(i), l, tree.PageHTML), to); err != nil {
			return err
		}
		if err := os.Chtimes(to, modified, modified); err != nil {
			return err
		}
		keep[l] = true
	}
	if len(langs) > 0 {
		// A rename over the old link, so that the name never goes missing.
		tmp := filepath.Join(dir, tmpPrefix+"hub-page")
		_ = os.Remove(tmp)
		if err := os.Link(filepath.Join(dir, tree.PageHTML), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(dir, tree.PageVariant(hub))); err != nil {
			return err
		}
		keep[hub] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if k := tree.VariantKey(e.Name()); k != "" && !keep[k] ||
			(tree.IsSectionPage(e.Name()) || tree.IsLabelsIndex(e.Name())) && !keepSection[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// publishIndex moves the index pages rendered into scratch into PagesDir, each replacing the old one with a rename.
func (p *Pipeline) publishIndex(scratch string, index []indexPage) error {
	pagesDir := PagesDir(p.o.Out)
	for i, ip := range index {
		to := filepath.Join(pagesDir, filepath.FromSlash(strings.Trim(ip.url, "/")), tree.PageHTML)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("pipeline: %w", err)
		}
		if err := os.Rename(filepath.Join(scratch, "i", strconv.Itoa(i), tree.PageHTML), to); err != nil {
			return fmt.Errorf("pipeline: page %s: %w", ip.url, err)
		}
	}
	return nil
}

// groupNames maps URL paths of groups and repositories ("/g", "/g/r") to their names, for breadcrumbs.
func (p *Pipeline) groupNames(ctx context.Context) map[string]string {
	names := map[string]string{"/": "ldhub"}
	if p.o.HTML != nil && p.o.HTML.Title != "" {
		names["/"] = p.o.HTML.Title
	}
	if p.o.Store == nil {
		return names
	}
	st, err := p.o.Store.Catalog(ctx)
	if err != nil {
		return names
	}
	for id, g := range st.Groups {
		names[st.Path(id)] = g.Name
	}
	for id, r := range st.Repos {
		names[st.Path(id)] = r.Name
	}
	return names
}

// groupNamesOn names the groups above a repository path ("/g/sub/r" gives the names of /g and /g/sub).
func groupNamesOn(repoPath string, names map[string]string) []string {
	var out []string
	for _, c := range crumbs(path.Dir(repoPath), names)[1:] {
		out = append(out, c.Name)
	}
	return out
}

// crumbs are the hub and every group above urlPath ("/g/sub/r" gives the hub, /g/ and /g/sub/).
func crumbs(urlPath string, names map[string]string) []html.Crumb {
	out := []html.Crumb{{Name: names["/"], Href: "/"}}
	segs := strings.Split(strings.Trim(urlPath, "/"), "/")
	for i := range segs {
		if segs[i] == "" {
			continue
		}
		p := "/" + strings.Join(segs[:i+1], "/")
		name := names[p]
		if name == "" {
			name = segs[i]
		}
		out = append(out, html.Crumb{Name: name, Href: p + "/"})
	}
	return out
}

// publicationPage turns a rendered folder's page into site/html's page data. Links are the direct URLs the handler
// answers: dumps at <self>.<ext>, the VoID description at <publication>/void.ttl, SPARQL at the page's own URL.
func publicationPage(pg *tree.Page, triples map[string]int, names map[string]string) html.PublicationPage {
	shown := html.Version{Label: pg.Version.Label, Commit: pg.Version.Commit, Time: pg.Version.Time, Href: pg.Self,
		SPARQL: pg.Self, Stats: html.Stats{Triples: pg.Stats.Triples, Subjects: pg.Stats.Subjects,
			Classes: counts2html(pg.Stats.Classes), Properties: counts2html(pg.Stats.Properties),
			Languages: counts2html(pg.Stats.Languages)}}
	for _, f := range pg.Formats {
		shown.Dumps = append(shown.Dumps, html.Dump{Format: f.Name, Ext: f.Ext, MediaType: f.MediaType,
			URL: pg.Self + f.Ext, Size: f.Size})
	}
	if pg.Latest {
		shown.VoID = pg.Path + "/" + tree.Void
	}
	repo := pg.RepositoryPath
	pp := html.PublicationPage{
		Crumbs:     crumbs(path.Dir(repo), names),
		Repository: html.Crumb{Name: pg.RepositoryName, Href: strings.TrimSuffix(repo, "/") + "/"},
		Href:       pg.Path,
		Publication: html.Publication{Name: pg.Name, Description: pg.Description, URI: pg.URI,
			Publisher: pg.Publisher, Modified: pg.Modified},
		Latest: pg.Latest,
	}
	pp.Crumbs = append(pp.Crumbs, pp.Repository)
	if repo == "/" || repo == "" { // a preview folder: no hub above the publications
		pp.Crumbs, pp.Repository = []html.Crumb{{Name: pg.RepositoryName, Href: "/"}}, html.Crumb{Name: pg.RepositoryName, Href: "/"}
	}
	if !pg.Latest || len(pg.Versions) == 0 {
		pp.Publication.Versions = []html.Version{shown}
		return pp
	}
	// Newest first; tree lists them oldest first.
	for i := len(pg.Versions) - 1; i >= 0; i-- {
		v := pg.Versions[i]
		if v.ID == pg.Version.ID {
			pp.Shown = len(pp.Publication.Versions)
			shown.Href = v.URL // in the list, the version's own page
			pp.Publication.Versions = append(pp.Publication.Versions, shown)
			continue
		}
		pp.Publication.Versions = append(pp.Publication.Versions, html.Version{Label: v.Label, Commit: v.Commit,
			Time: v.Time, Href: v.URL, Stats: html.Stats{Triples: triples[v.ID]}})
	}
	return pp
}

func counts2html(cs []tree.Count) []html.Count {
	out := make([]html.Count, 0, len(cs))
	for _, c := range cs {
		out = append(out, html.Count{Value: c.Value, Label: c.Label, N: c.N})
	}
	return out
}

// indexPages adds to hb the hub page, the pages of the groups above repo and repo's own page. Only public content is
// listed: repositories that are not visible, and groups with nothing visible below them, are left out, and their
// pages (as well as a moved repository's old page, oldPath) are returned for removal. It runs as commitPages's index
// callback, with the batch's names.
func (p *Pipeline) indexPages(ctx context.Context, hb *html.Batch, repo *model.Repository, repoPath, oldPath string, pubs []model.Publication) ([]indexPage, []string, error) {
	st, err := p.o.Store.Catalog(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline: catalogue: %w", err)
	}
	names := p.batch.names
	visible := map[string]bool{}
	var hasVisible func(groupID string) bool
	hasVisible = func(groupID string) bool {
		if v, ok := visible[groupID]; ok {
			return v
		}
		visible[groupID] = false // a cycle cannot make a group visible
		gs, rs := st.Children(groupID)
		v := slices.ContainsFunc(rs, func(r model.Repository) bool { return r.Visible }) ||
			slices.ContainsFunc(gs, func(g model.Group) bool { return hasVisible(g.ID) })
		visible[groupID] = v
		return v
	}
	entries := func(groupID string) (groups, repos []html.Entry) {
		gs, rs := st.Children(groupID)
		for _, g := range gs {
			if hasVisible(g.ID) {
				groups = append(groups, html.Entry{Name: g.Name, Href: st.Path(g.ID) + "/", Description: g.Description})
			}
		}
		for _, r := range rs {
			if r.Visible {
				repos = append(repos, html.Entry{Name: r.Name, Href: st.Path(r.ID) + "/", Description: r.Description})
			}
		}
		return groups, repos
	}
	var pages []indexPage
	var remove []string
	add := func(url string, f func(out string) error) error {
		if err := f("i/" + strconv.Itoa(len(pages))); err != nil {
			return fmt.Errorf("pipeline: page %s: %w", url, err)
		}
		pages = append(pages, indexPage{url: url})
		return nil
	}
	top, _ := entries("")
	for i := range top {
		id, _, _ := st.Resolve(strings.TrimSuffix(top[i].Href, "/"))
		_, top[i].Entries = entries(id)
	}
	if err := add("/", func(out string) error { return hb.Hub(out, "", top) }); err != nil {
		return nil, nil, err
	}
	done := map[string]bool{}
	groupsUp := func(id string) error {
		for ; id != "" && !done[id]; id = st.Groups[id].ParentID {
			done[id] = true
			g, ok := st.Groups[id]
			if !ok {
				return nil
			}
			gp := st.Path(id)
			if !hasVisible(id) {
				remove = append(remove, gp)
				continue
			}
			groups, repos := entries(id)
			err := add(gp+"/", func(out string) error {
				return hb.Group(out, crumbs(path.Dir(gp), names), g.Name, g.Description, groups, repos)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	if oldPath != "" && oldPath != repoPath {
		// A repository moved or deleted: its old page goes, and the groups it was listed in are listed again.
		remove = append(remove, oldPath)
		if id, isRepo, ok := st.Resolve(path.Dir(oldPath)); ok && !isRepo {
			if err := groupsUp(id); err != nil {
				return nil, nil, err
			}
		}
	}
	if repo == nil {
		return pages, remove, nil
	}
	if err := groupsUp(repo.ParentID); err != nil {
		return nil, nil, err
	}
	if !repo.Visible {
		return pages, append(remove, repoPath), nil
	}
	list := make([]html.Entry, 0, len(pubs))
	for _, pub := range pubs {
		e := html.Entry{Name: pub.Name, Href: path.Join(repoPath, pub.PublicationURI), Description: pub.Description}
		if pg := p.latestPage(pub.ID, e.Href); pg != nil {
			e.Version, e.Triples = pg.Version.Label, pg.Stats.Triples
		}
		list = append(list, e)
	}
	err = add(repoPath+"/", func(out string) error {
		return hb.Repository(out, crumbs(path.Dir(repoPath), names), repo.Name, repo.Description, list)
	})
	return pages, remove, err
}

// latestPage is the publication's latest page: the one this sync renders, else the one live in the public tree.
func (p *Pipeline) latestPage(id, urlPath string) *tree.Page {
	if pg := p.batch.latest[id]; pg != nil {
		return pg
	}
	b, err := os.ReadFile(filepath.Join(tree.PubDir(tree.Root(p.o.Out, false), urlPath), tree.Current, tree.PageJSON))
	if err != nil {
		return nil
	}
	var pg tree.Page
	if json.Unmarshal(b, &pg) != nil || pg.ID != id {
		return nil
	}
	return &pg
}

// RenderHub renders the hub page alone. Every repository's sync renders it too; this is for a hub whose
// repositories are all unchanged or which has none yet, whose front page would otherwise be missing.
func (p *Pipeline) RenderHub(ctx context.Context) error {
	if p.o.HTML == nil || p.o.Store == nil {
		return nil
	}
	p.work.Lock()
	defer p.work.Unlock()
	p.beginPages()
	defer p.endPages()
	return p.commitPages(ctx, func(hb *html.Batch) ([]indexPage, []string, error) {
		return p.indexPages(ctx, hb, nil, "", "", nil)
	})
}
