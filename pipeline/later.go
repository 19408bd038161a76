package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
)

// A page documenting a large vocabulary costs more than a second of Hugo (a 1 M-triple BSBM version defines 3 284
// terms: two 5 MB pages, the version's and the latest's, 2.2 s between reading terms.json and Hugo, about 40% of
// what was left between the upload's answer and the switch). When Run's background worker is there, such a page is
// rendered after the switch instead: the staged folder goes live with its page without the documentation (the
// same version's data, statistics, dumps and versions), and the documented page replaces it, by rename, as soon as
// it is rendered. A live folder that only needs its page again (a new neighbour version, another theme) keeps its
// page until then. A page rendered by a later sync is never overwritten by an older background render (pageGen).
// The repository's saved theme stamp is left empty while any of its pages waits, so that a stop before they are
// written renders its pages again at the next sync.

// heavyAbove is the size of terms.json above which a page is documented after the switch: schema.org's (about 3 000
// terms) is 2.4 MB; a small ontology's a few kB.
const heavyAbove = 512 << 10

// heavyDoc says whether the folder's documentation is rendered after the switch: it is large, or not collected yet
// (terms.go).
func heavyDoc(dir string) bool {
	if termsPending(dir) {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, tree.Terms))
	return err == nil && fi.Size() > heavyAbove
}

// laterPage is a page to render with its documentation after the switch.
type laterPage struct {
	dir      string // the live folder (final path)
	repo     string
	pp       html.PublicationPage
	modified time.Time
	gen      uint64
	stamp    string
}

// queueLater records a page to render with its documentation once the sync's folders are in place.
func (p *Pipeline) queueLater(dir, repo string, pp html.PublicationPage, modified time.Time) {
	p.batch.later = append(p.batch.later, laterPage{dir: dir, repo: repo, pp: pp, modified: modified, stamp: p.batch.stamp})
}

// bumpPage notes that dir's page is rendered by the sync in progress: a background render queued before must not
// replace it. The caller holds the work lock.
func (p *Pipeline) bumpPage(dir string) {
	if len(p.pageGen) > 0 {
		if _, ok := p.pageGen[dir]; ok {
			p.pageGen[dir]++
		}
	}
}

// startLater hands the sync's pending pages to the background worker (the caller holds the work lock).
func (p *Pipeline) startLater(pages []laterPage) {
	q := p.gz.Load()
	if len(pages) == 0 || q == nil {
		return
	}
	for i := range pages {
		p.pageGen[pages[i].dir]++
		pages[i].gen = p.pageGen[pages[i].dir]
		p.laterRepos[pages[i].repo]++
	}
	q.addPages(pages)
}

// laterPending says whether pages of the repository wait for the background worker (the caller holds the work
// lock).
func (p *Pipeline) laterPending(repo string) bool { return p.laterRepos[repo] > 0 }

// renderLater renders the pages with their documentation and puts each in place unless its folder is gone or a
// later sync rendered its page meanwhile. Each page is one Hugo build of its own: a large vocabulary's page comes
// with its listing pages and labels index in every language of its labels (BSBM's five languages made about 60
// pages of up to 5 MB for one folder), and one build of every queued folder at once held all of them in memory,
// over 2.4 GiB for a 1 M-triple version with its latest folder and neighbour. The builds run one after another,
// so at most one folder's pages are held.
func (p *Pipeline) renderLater(ctx context.Context, pages []laterPage) {
	var err error
	langs := make([][]string, len(pages))
	hubs := make([]string, len(pages))
	scratches := make([]string, len(pages))
	defer func() {
		for _, s := range scratches {
			if s != "" {
				os.RemoveAll(s)
			}
		}
	}()
	for i, j := range pages {
		hb := &html.Batch{Title: p.o.HTML.Title, Language: p.o.HTML.Language, TermsPerPage: p.o.HTML.TermsPerPage}
		pp := j.pp
		pp.Vocab = p.readTerms(j.dir)
		lateSizes(&pp, j.dir)
		var ls *listings
		if langs[i], hubs[i], ls, err = p.addPublication(hb, 0, pp); err != nil {
			break
		}
		if scratches[i], err = os.MkdirTemp(p.o.Out, tmpPrefix+"html-"); err != nil {
			break
		}
		if err = html.RenderBatch(ctx, hb, scratches[i], p.o.HTML.Themes...); err != nil {
			break
		}
		if err = p.renderListings(ctx, hb, ls, scratches[i]); err != nil {
			break
		}
	}
	if err != nil && ctx.Err() == nil {
		p.o.Log.Error("pipeline: documented pages", "err", err)
	}
	p.work.Lock()
	defer p.work.Unlock()
	done := map[string]bool{}
	for i, j := range pages {
		p.laterRepos[j.repo]--
		if p.laterRepos[j.repo] <= 0 {
			delete(p.laterRepos, j.repo)
			done[j.repo] = true
		}
		if err != nil || p.pageGen[j.dir] != j.gen {
			continue
		}
		delete(p.pageGen, j.dir)
		if _, serr := os.Stat(filepath.Join(j.dir, tree.PageJSON)); serr != nil {
			continue // the folder is gone (a newer latest folder, a removed version)
		}
		to := filepath.Join(j.dir, tree.PageHTML)
		if rerr := os.Rename(filepath.Join(scratches[i], "p", "0", tree.PageHTML), to); rerr != nil {
			if !errors.Is(rerr, fs.ErrNotExist) {
				p.o.Log.Error("pipeline: documented page", "folder", j.dir, "err", rerr)
			}
			continue
		}
		_ = os.Chtimes(to, j.modified, j.modified)
		if verr := placeVariants(scratches[i], 0, j.dir, langs[i], hubs[i], j.modified); verr != nil {
			p.o.Log.Error("pipeline: documented page's languages", "folder", j.dir, "err", verr)
		}
	}
	if err != nil {
		return // the pages stay undocumented; the empty stamp renders them again at the next sync
	}
	// Every page of the repository is documented: its theme stamp can say so again.
	for _, j := range pages {
		if !done[j.repo] {
			continue
		}
		done[j.repo] = false
		st := p.loadState(j.repo)
		if st.Pages == "" && j.stamp != "" {
			st.Pages = j.stamp
			if serr := p.saveState(j.repo, st); serr != nil {
				p.o.Log.Warn("pipeline: state", "repository", j.repo, "err", serr)
			}
		}
	}
}

// lateSizes gives the shown version's dumps that were written after the switch (dumps.go; listed with size 0)
// the size of their file, and leaves out those that could not be written.
func lateSizes(pp *html.PublicationPage, dir string) {
	vs := pp.Publication.Versions
	if pp.Shown < 0 || pp.Shown >= len(vs) || latePending(dir) {
		return
	}
	var dumps []html.Dump
	for _, d := range vs[pp.Shown].Dumps {
		if d.Size == 0 {
			fi, err := os.Stat(filepath.Join(dir, tree.DataBase+d.Ext))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				d.Size = fi.Size()
			}
		}
		dumps = append(dumps, d)
	}
	vs = slices.Clone(vs)
	vs[pp.Shown].Dumps = dumps
	pp.Publication.Versions = vs
}
