package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ldhub/ldhub/site/tree"
)

// Folder renders a plain folder of RDF files, without a store or git: each file is a publication at its path
// without the extension, with one version labelled by its content hash. `ldhub preview` shows a publisher's
// working copy with it. It is not safe for concurrent use.
type Folder struct {
	Dir  string
	p    *Pipeline
	seen map[string]string // URL path -> content hash rendered
}

// NewFolder prepares to render dir into o.Out (o.Store is not used).
func NewFolder(dir string, o Options) (*Folder, error) {
	if o.Out == "" {
		return nil, errors.New("pipeline: an output folder is required")
	}
	o.Store = nil
	p, err := newPipeline(o)
	if err != nil {
		return nil, err
	}
	return &Folder{Dir: dir, p: p, seen: map[string]string{}}, nil
}

// Sync renders every file that changed since the last call and removes publications whose file is gone. It
// returns the URL paths it rendered; a file that does not parse is reported in the error and the others still
// render.
func (f *Folder) Sync(ctx context.Context) ([]string, error) {
	files := map[string]string{} // URL path -> file
	err := filepath.WalkDir(f.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.Dir, p)
		if rel != "." && strings.HasPrefix(d.Name(), ".") || d.IsDir() && rel == "files" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || strings.HasSuffix(p, ".meta.json") {
			return nil
		}
		if _, ok := f.p.o.Codecs.ByPath(p); ok {
			files["/"+strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel))] = p
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	urls := make([]string, 0, len(files))
	for u := range files {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	var rendered []string
	var errs []error
	f.p.beginPages()
	defer f.p.endPages()
	for _, u := range urls {
		if err := ctx.Err(); err != nil {
			return rendered, err
		}
		ok, err := f.renderFile(ctx, u, files[u])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", files[u], err))
			continue
		}
		if ok {
			rendered = append(rendered, u)
		}
	}
	// One Hugo build for every changed page, then the folders go into place.
	if err := f.p.commitPages(ctx, nil); err != nil {
		return nil, errors.Join(append(errs, err)...)
	}
	for u := range f.seen {
		if _, ok := files[u]; !ok {
			delete(f.seen, u)
			if err := os.RemoveAll(tree.PubDir(tree.Root(f.p.o.Out, false), u)); err != nil {
				errs = append(errs, err)
			}
			rendered = append(rendered, u)
		}
	}
	return rendered, errors.Join(errs...)
}

// Publications lists the URL paths rendered, sorted.
func (f *Folder) Publications() []string {
	out := make([]string, 0, len(f.seen))
	for u := range f.seen {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

func (f *Folder) renderFile(ctx context.Context, urlPath, file string) (bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(data)
	label := hex.EncodeToString(sum[:6])
	if f.seen[urlPath] == label {
		return false, nil
	}
	syn, _ := f.p.o.Codecs.ByPath(file)
	pubDir := tree.PubDir(tree.Root(f.p.o.Out, false), urlPath)
	vroot := filepath.Join(pubDir, tree.Versions)
	if err := os.MkdirAll(vroot, 0o755); err != nil {
		return false, err
	}
	base := tree.Page{ID: urlPath, Name: path.Base(urlPath), RepositoryPath: "/", RepositoryName: filepath.Base(f.Dir),
		URI: f.p.o.BaseURL + urlPath, Path: urlPath}
	v := tree.Version{ID: label, Label: label, Commit: label, Time: fi.ModTime().UTC().Truncate(1e9), URL: urlPath + "/versions/" + label}
	dir := filepath.Join(vroot, label)
	tmp, err := os.MkdirTemp(vroot, tmpPrefix)
	if err != nil {
		return false, err
	}
	defer f.p.batch.drop(tmp) // unless staged
	r, err := renderVersion(ctx, f.p.o.Codecs, tmp, source{data: data, syntax: syn, base: base.URI + "/"}, v.Time, false)
	if err != nil {
		return false, err
	}
	page := base
	page.Self, page.Version, page.Formats, page.Stats, page.Modified = v.URL, v, r.formats, r.stats, v.Time
	if err := f.p.writePage(tmp, &page); err != nil {
		return false, err
	}
	_ = os.RemoveAll(dir)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return false, err
	}
	f.p.batch.rename(tmp, dir)
	f.p.queueGzip(dir, r.unzipped)
	if err := f.p.switchLatest(ctx, pubDir, &page, base, []tree.Version{v}, label); err != nil {
		return false, err
	}
	// Only the file's current state is previewed: older renderings go.
	f.p.batch.then(func() error {
		if ents, err := os.ReadDir(vroot); err == nil {
			for _, e := range ents {
				if e.Name() != label && !strings.HasPrefix(e.Name(), tmpPrefix) {
					_ = os.RemoveAll(filepath.Join(vroot, e.Name()))
				}
			}
		}
		return nil
	})
	f.seen[urlPath] = label
	return true, nil
}
