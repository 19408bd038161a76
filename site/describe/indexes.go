package describe

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ldhub/ldhub/cache"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Indexes keeps the SPARQL index files of a rendered tree mapped, the most recently used first, for every reader
// of the tree: the site's resources and queries and the API's SPARQL endpoint share one, so that each file is
// mapped once. An index is closed (unmapped) only when it is evicted, which a query holding it prevents.
type Indexes struct {
	c *cache.Cache[string, *index.Dataset]
}

// NewIndexes keeps at most max indexes mapped.
func NewIndexes(max int) *Indexes {
	return &Indexes{c: cache.New(cache.Options[string, *index.Dataset]{
		MaxCost: int64(max),
		OnEvict: func(_ string, ds *index.Dataset) { _ = ds.Close() },
	})}
}

// Acquire returns the index of the rendered folder dir, which the caller found rendering version versionID from
// its document read with base (its page.json's Version.ID and Base), mapped and pinned until release is called.
//
// The key is the version and the base, not the folder: a version's latest folder (.ld/L-…) and its own folder
// (.ld/v/<label>) hold hard links to one file, which the site and the API, each reading one of them, then map
// once. The same version read with the same base always renders the same index. Only a page without a base
// (rendered before pages recorded it) is keyed by its folder.
//
// Between the caller reading the page and the index being opened, the folder can be deleted and rendered again
// under the same name (a publication deleted and published again at the same path). So the file is kept only
// when the page beside it, read after the file was opened, still names that version and base: a version id never
// comes back with other data, so the file opened is that version's.
func (x *Indexes) Acquire(dir, versionID, base string) (ds *index.Dataset, release func(), err error) {
	key := "v\x00" + versionID + "\x00" + base
	if base == "" {
		key = "d\x00" + dir + "\x00" + versionID
	}
	return x.c.Acquire(key, func() (*index.Dataset, error) {
		ds, err := index.Open(filepath.Join(dir, tree.Index))
		if err != nil {
			return nil, err
		}
		p, err := tree.ReadPage(dir)
		if err == nil && (p.Version.ID != versionID || p.Base != base) {
			err = fmt.Errorf("describe: %s now renders version %s (base %q), not %s (base %q)", dir, p.Version.ID, p.Base, versionID, base)
		}
		if err != nil {
			_ = ds.Close()
			return nil, err
		}
		return ds, nil
	})
}

// AcquireFile maps the index file at path when the caller knows no version (another publication's latest,
// through its cur link; Foreign.Open) and holds it until release. The key is the file's path with symbolic
// links resolved: cur points at a folder named after the version, so a new version is a new key.
func (x *Indexes) AcquireFile(path string) (ds *index.Dataset, release func(), err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil, err
	}
	return x.c.Acquire("f\x00"+real, func() (*index.Dataset, error) { return index.Open(real) })
}

// Len is the number of indexes mapped.
func (x *Indexes) Len() int { return x.c.Len() }

// Warm maps and warms (index.Dataset.Warm) the index of each rendered folder read from dirs, one at a time, until
// ctx ends or dirs is closed: the folders of versions just made live, so that their first query does not pay for
// the pages and tables every query needs. The index is not pinned while it warms: evicting it ends the warming
// (Dataset.Close waits for it), as does ctx. A folder that renders no index, or is gone, is skipped.
func (x *Indexes) Warm(ctx context.Context, dirs <-chan string) {
	for {
		var dir string
		select {
		case <-ctx.Done():
			return
		case d, ok := <-dirs:
			if !ok {
				return
			}
			dir = d
		}
		p, err := tree.ReadPage(dir)
		if err != nil {
			continue
		}
		ds, release, err := x.Acquire(dir, p.Version.ID, p.Base)
		if err != nil {
			continue
		}
		release()
		ds.Warm(ctx)
	}
}
