package pipeline

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/vocab"
	"github.com/ldhub/ldhub/site/describe"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/tree"
	"github.com/ldhub/ldhub/sparqlsvc/index"
)

// A new version of a large vocabulary changes a few statements, but finding the few pages that changed meant
// describing and fingerprinting every term again (3 ms of CPU a term: a quarter of an hour for 300 000). A term's
// page shows its statements (and the blank nodes they reach), the statements that point at it, the labels of
// every IRI in them, its entry of terms.json, and what every page of the folder shows (the hub, the publication,
// the formats, the theme). So, when an earlier folder's pages were written on the same basis (termBasis: the same
// page frame, the same terms.json besides its terms, other publications at the same versions), a page can differ
// only for:
//   - the subjects and objects of the statements added or removed, and the terms whose terms.json entry changed:
//     their own statements or entry changed;
//   - their neighbours in the new graph (the subjects and objects of the statements they are in, as subject,
//     object or predicate): these pages show their labels.
// Everything else is linked from the earlier folder without being described. Anything the rule cannot follow makes
// the job describe every term as before: blank nodes among those terms or their neighbours (a page shows the
// labels of what its blank nodes reach, further away), terms whose ids are not in the same order in both indexes
// (a page lists statements in index order), named graphs.

// termBasisFile records, in a term pages folder whose pages are all written, what every page of it was written
// on (termBasis); termDocSums the fingerprint of each term's terms.json entry.
const (
	termBasisFile = ".basis"
	termDocSums   = ".docsums"
)

// termBasis is what the pages of a folder were written on besides their terms' own data.
type termBasis struct {
	Scheme string `json:"scheme"` // termSumScheme
	Frame  string `json:"frame"`  // what every page shows besides its term (framePrint)
	Docs   string `json:"docs"`   // terms.json besides its terms (docsPrint)
	// Foreign are the other publications whose labels the pages show, each with its live latest folder when
	// the job first asked it.
	Foreign map[string]string `json:"foreign,omitempty"`
}

// removeBasis removes the basis of a term pages folder whose pages are about to change.
func removeBasis(out string) error {
	for _, f := range []string{termBasisFile, termDocSums} {
		if err := os.Remove(filepath.Join(out, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// writeBasis records the basis of the folder's pages, all of them in place.
func (w *termWrite) writeBasis() error {
	frame, err := w.framePrint()
	if err != nil {
		return err
	}
	b, err := json.Marshal(termBasis{Scheme: termSumScheme, Frame: frame, Docs: docsPrint(w.doc), Foreign: w.used})
	if err != nil {
		return err
	}
	var sums strings.Builder
	if w.doc != nil {
		for i := range w.doc.Terms {
			t := &w.doc.Terms[i]
			sums.WriteString(termDocPrint(t) + " " + t.IRI + "\n")
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(w.out, termDocSums), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(w.out, termBasisFile), b, 0o644)
}

// framePrint fingerprints what every page of the folder shows besides its term: the page of a resource of the
// publication described by no statement, with the theme's stamp.
func (w *termWrite) framePrint() (string, error) {
	rp := describe.Page(w.ds, &w.j.page, describe.Description{IRI: w.j.page.URI + "/"}, w.pageOptions(w.j.page.Path+"/", nil))
	fp, err := html.ResourceFingerprint(rp)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", termSumScheme, w.j.stamp, fp)
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// docsPrint fingerprints terms.json besides its terms: the ontology's header, prefixes and outside labels, which
// any term's entry may show.
func docsPrint(d *vocab.Doc) string {
	if d == nil {
		return ""
	}
	b, _ := json.Marshal(struct {
		O *vocab.Header
		P []rdf.Prefix
		L map[string][]vocab.Text
		T bool
	}{d.Ontology, d.Prefixes, d.Labels, d.Truncated})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// termDocPrint fingerprints one term's entry of terms.json.
func termDocPrint(t *vocab.Term) string {
	b, _ := json.Marshal(t)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// recheck finds a source folder whose pages were written on the job's basis and returns the names of the terms
// whose page may differ from that folder's, with its fingerprints. recheck is nil (describe every term) when there
// is no such folder or the rule cannot follow the difference.
func (w *termWrite) recheck(ctx context.Context) (recheck map[string]bool, baseSums map[string]string, err error) {
	frame, err := w.framePrint()
	if err != nil {
		return nil, nil, err
	}
	docs := docsPrint(w.doc)
	for _, s := range w.j.sources {
		if s == w.j.dir {
			continue
		}
		out := filepath.Join(s, tree.TermPages)
		var b termBasis
		raw, err := os.ReadFile(filepath.Join(out, termBasisFile))
		if err != nil || json.Unmarshal(raw, &b) != nil || b.Scheme != termSumScheme || b.Frame != frame || b.Docs != docs {
			continue
		}
		if _, err := os.Stat(filepath.Join(out, tree.TermSums)); err != nil {
			continue
		}
		same := true
		for path, folder := range b.Foreign {
			same = same && w.p.liveFolder(path) == folder
		}
		if !same {
			continue
		}
		changed, ok := w.docChanges(out)
		if !ok {
			continue
		}
		old, err := index.Open(filepath.Join(s, tree.Index))
		if err != nil {
			continue
		}
		names, ok := termChanges(ctx, old, w.ds, w.j.page.URI+"/", changed)
		old.Close()
		if !ok || ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return names, readTermSums(out), nil
	}
	return nil, nil, nil
}

// docChanges are the IRIs whose terms.json entry differs between the source folder's pages (out) and the job's,
// those of either alone included; ok is false when the source has no fingerprints of its entries.
func (w *termWrite) docChanges(out string) (changed []string, ok bool) {
	f, err := os.Open(filepath.Join(out, termDocSums))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	old := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if sum, iri, ok := strings.Cut(sc.Text(), " "); ok {
			old[iri] = sum
		}
	}
	if sc.Err() != nil {
		return nil, false
	}
	if w.doc != nil {
		for i := range w.doc.Terms {
			t := &w.doc.Terms[i]
			if sum, ok := old[t.IRI]; !ok || sum != termDocPrint(t) {
				changed = append(changed, t.IRI)
			}
			delete(old, t.IRI)
		}
	}
	for iri := range old {
		changed = append(changed, iri)
	}
	return changed, true
}

// termChanges returns the names (below prefix, as termNames) of the terms of cur whose page may differ from their
// page over old: the subjects and objects of the statements of either graph alone and the IRIs of changed (their
// terms.json entries), with their neighbours in cur. ok is false when the rule cannot follow the difference (see
// above): then every term is to be described.
func termChanges(ctx context.Context, old, cur *index.Dataset, prefix string, changed []string) (names map[string]bool, ok bool) {
	if len(old.GraphNames()) > 0 || len(cur.GraphNames()) > 0 {
		return nil, false
	}
	// Each term of old with its id in cur. Statements are listed in id order on a page, so the ids of the terms
	// in both must be in the same order; then old's rows with their ids in cur are in cur's SPO order too.
	toCur := make([]index.ID, old.Dict.Len()+1)
	var last index.ID
	for id := index.ID(1); int(id) <= old.Dict.Len(); id++ {
		if id%(1<<16) == 0 && ctx.Err() != nil {
			return nil, false
		}
		n := cur.Dict.Lookup(old.Dict.Term(id))
		if n != 0 {
			if n <= last && !index.IsInline(n) {
				return nil, false
			}
			last = n
		}
		toCur[id] = n
	}
	mapID := func(id index.ID) index.ID {
		if index.IsInline(id) {
			return id
		}
		return toCur[id]
	}
	touched := map[index.ID]bool{}
	blank := false
	touch := func(ds *index.Dataset, ids ...index.ID) {
		for _, id := range ids {
			if ds.Dict.Term(id).Kind == rdf.KindBlank {
				blank = true
			}
			if ds == old {
				id = mapID(id)
			}
			if id != 0 {
				touched[id] = true
			}
		}
	}
	oldRows, curRows := old.Default.Rows(index.SPO), cur.Default.Rows(index.SPO)
	i, j := 0, 0
	for i < len(oldRows) || j < len(curRows) {
		if (i+j)%(1<<16) == 0 && ctx.Err() != nil {
			return nil, false
		}
		if i == len(oldRows) {
			touch(cur, curRows[j][0], curRows[j][2])
			j++
			continue
		}
		r := oldRows[i]
		m := index.Row{mapID(r[0]), mapID(r[1]), mapID(r[2])}
		if m[0] == 0 || m[1] == 0 || m[2] == 0 {
			touch(old, r[0], r[2]) // a statement with a term cur lacks
			i++
			continue
		}
		if j == len(curRows) || cmpIDs(m, curRows[j]) < 0 {
			touch(old, r[0], r[2])
			i++
			continue
		}
		if c := cmpIDs(m, curRows[j]); c > 0 {
			touch(cur, curRows[j][0], curRows[j][2])
			j++
			continue
		}
		i++
		j++
	}
	for _, iri := range changed {
		if id := cur.Dict.Lookup(rdf.IRI(iri)); id != 0 {
			touched[id] = true
		}
	}
	if blank {
		return nil, false
	}
	names = map[string]bool{}
	add := func(id index.ID) bool {
		t := cur.Dict.Term(id)
		switch t.Kind {
		case rdf.KindBlank:
			return false
		case rdf.KindIRI:
			if name, ok := strings.CutPrefix(t.Value, prefix); ok && tree.TermPageName(name) {
				names[name] = true
			}
		}
		return true
	}
	g := cur.Default
	for id := range touched {
		if cur.Dict.Term(id).Kind != rdf.KindIRI {
			continue // a literal has no label to show elsewhere; the statements holding it are touched already
		}
		add(id)
		for _, m := range []struct {
			rows index.Matches
			pos  []int
		}{{g.Match(id, 0, 0), []int{2}}, {g.Match(0, 0, id), []int{0}}, {g.Match(0, id, 0), []int{0, 2}}} {
			for k := 0; k < m.rows.Len(); k++ {
				s, _, o := m.rows.At(k)
				for _, pos := range m.pos {
					n := s
					if pos == 2 {
						n = o
					}
					if !add(n) {
						return nil, false
					}
				}
			}
		}
	}
	return names, true
}

// cmpIDs orders rows by subject, predicate and object id, as a graph's SPO rows are.
func cmpIDs(a, b index.Row) int {
	for k := range 3 {
		if a[k] != b[k] {
			if a[k] < b[k] {
				return -1
			}
			return 1
		}
	}
	return 0
}
