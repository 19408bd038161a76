package describe

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// Bounds of the labels one page looks up in other publications: the IRIs asked about and the publications opened.
const (
	maxForeignIRIs = 200
	maxForeignPubs = 8
)

// Foreign finds the labels of IRIs that belong to other publications of the hub: an IRI is a publication's when
// it is the publication's URI followed by "/" or "#" and more, and the publication's latest version labels it.
// Only public publications are asked (Root is the public tree), so no page shows what its reader may not see.
type Foreign struct {
	Root string // the public rendered tree (tree.Root(out, false))
	Base string // the hub's base URL, which every publication's URI starts with
	// Open opens an index file (or finds it open); release gives it back.
	Open func(path string) (ds *index.Dataset, release func(), err error)
	// Index, when set, names the index file of the publication at a URL path ("" for none) before the tree is
	// asked: the pipeline points it at the latest folders it has staged but not yet switched.
	Index func(urlPath string) string
	// Used, when set, is told the URL path of every publication asked for labels, so that a pre-rendered page can
	// be rendered again when that publication changes.
	Used func(urlPath string)
}

// addLabels adds to labels and tags the labels of the IRIs of the statements that have none yet and belong to a
// publication other than the one whose URI is self, in the language order langs.
func (f *Foreign) addLabels(self string, langs []string, labels, tags map[string]string, lists ...[]rdf.Quad) {
	if f == nil || f.Base == "" {
		return
	}
	byPub := map[string][]rdf.Quad{} // index file -> the IRIs to look up there
	owner := map[string]string{}     // URL path -> index file ("" when no publication is there)
	asked := map[string]bool{}
	consider := func(t rdf.Term) {
		if !t.IsIRI() || asked[t.Value] || len(asked) >= maxForeignIRIs || labels[t.Value] != "" ||
			!strings.HasPrefix(t.Value, f.Base+"/") || strings.HasPrefix(t.Value, self+"/") || strings.HasPrefix(t.Value, self+"#") {
			return
		}
		asked[t.Value] = true
		p, _, _ := strings.Cut(t.Value[len(f.Base):], "#")
		segs := strings.Split(strings.Trim(p, "/"), "/")
		for _, s := range segs {
			if s == "" || s[0] == '.' || strings.ContainsAny(s, "\x00\\%") {
				return
			}
		}
		// The deepest publication on the path is the IRI's, as the handler locates it.
		for k := len(segs); k >= 1; k-- {
			urlPath := "/" + strings.Join(segs[:k], "/")
			file, seen := owner[urlPath]
			if !seen {
				if f.Index != nil {
					file = f.Index(urlPath)
				}
				if file == "" {
					file = filepath.Join(tree.PubDir(f.Root, urlPath), tree.Current, tree.Index)
					if _, err := os.Stat(file); err != nil {
						file = ""
					}
				}
				owner[urlPath] = file
			}
			if file == "" {
				continue
			}
			if f.Used != nil {
				f.Used(urlPath)
			}
			if len(byPub) < maxForeignPubs || byPub[file] != nil {
				byPub[file] = append(byPub[file], rdf.Quad{S: t})
			}
			return
		}
	}
	for _, qs := range lists {
		for _, q := range qs {
			consider(q.S)
			consider(q.P)
			consider(q.O)
		}
	}
	for file, qs := range byPub {
		ds, release, err := f.Open(file)
		if err != nil {
			continue
		}
		ls, ts := Labels(ds, langs, qs)
		release()
		for k, v := range ls {
			labels[k] = v
		}
		for k, v := range ts {
			tags[k] = v
		}
	}
}
