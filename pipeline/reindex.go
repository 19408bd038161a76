package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// reindex builds the SPARQL index of a rendered version folder again when a binary of an earlier index format wrote
// it. Version folders are otherwise trusted as they are (versions are immutable), so without this an upgraded hub
// would refuse every query and term page of the versions it had already rendered. Only the index is replaced,
// atomically and under its old modification time: the dumps and pages do not depend on its format, and the version
// keeps serving while the new file is built. The latest folder, which holds a hard link to the old file, is built again
// because syncPublication finds its index stale too.
func (p *Pipeline) reindex(ctx context.Context, pub model.Publication, v model.Version, base tree.Page, tv tree.Version, dir string) error {
	path := filepath.Join(dir, tree.Index)
	if !index.Stale(path) {
		return nil
	}
	at, data, err := p.o.Store.TakePublicationContent(ctx, model.SystemActor, pub.ID, v.ID)
	if err != nil {
		return err
	}
	syn, ok := p.o.Codecs.ByPath(at.Version.Path)
	if !ok {
		return fmt.Errorf("no syntax for %s", at.Version.Path)
	}
	src := source{data: data, syntax: syn, base: p.docBase(at, base, tv)}
	ds, err := index.BuildFrom(ctx, src.decoder())
	if err != nil {
		return fmt.Errorf("SPARQL index of %s version %s: %w", base.Path, v.Label, err)
	}
	defer ds.Close()
	if err := ds.Save(path); err != nil {
		return err
	}
	p.o.Log.Info("pipeline: SPARQL index built again in the current format", "publication", base.Path, "version", v.Label, "format", index.Format)
	return os.Chtimes(path, tv.Time, tv.Time)
}

// docBase is the base IRI a version's document is read with: the publication's URI, or the version's own URL when
// the publication asks for versioned base IRIs.
func (p *Pipeline) docBase(at model.Publication, base tree.Page, tv tree.Version) string {
	if at.UseVersionedBaseURI {
		return p.o.BaseURL + tv.URL + "/"
	}
	return base.URI + "/"
}
