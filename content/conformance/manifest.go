package conformance

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

// Vocabulary of the W3C test manifests.
const (
	MF         = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	QT         = "http://www.w3.org/2001/sw/DataAccess/tests/test-query#"
	RDFT       = "http://www.w3.org/ns/rdftest#"
	DAWGT      = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#"
	RDFS       = "http://www.w3.org/2000/01/rdf-schema#"
	mfManifest = MF + "Manifest"
	mfInclude  = MF + "include"
	mfEntries  = MF + "entries"
	mfName     = MF + "name"
	mfAction   = MF + "action"
	mfResult   = MF + "result"
)

// Test is one entry of a manifest.
type Test struct {
	IRI      string
	Name     string   // mf:name
	Types    []string // rdf:type, full IRIs
	Action   rdf.Term // mf:action: a file IRI, or a blank node whose properties (qt:query, qt:data, ...) say more
	Result   rdf.Term // mf:result; zero when absent
	Approval string   // rdft:approval or dawgt:approval as a full IRI; "" when absent
}

// HasType reports whether t has the rdf:type typeIRI.
func (t Test) HasType(typeIRI string) bool {
	for _, ty := range t.Types {
		if ty == typeIRI {
			return true
		}
	}
	return false
}

// Manifest is a manifest with every manifest it includes, flattened: the tests in manifest order, and all the
// statements of all the files so that any other property can be read.
type Manifest struct {
	Tests []Test
	props map[rdf.Term]map[string][]rdf.Term
}

// LoadManifest reads the Turtle manifest at path and, recursively, the manifests it names with mf:include. Each
// file is parsed with base file://<absolute path>, so the file IRIs in it map back to local paths (LocalPath).
func LoadManifest(path string) (*Manifest, error) {
	m := &Manifest{props: map[rdf.Term]map[string][]rdf.Term{}}
	// One allocator for all files keeps blank nodes of different manifests apart.
	blanks := rdf.NewBlankNodes("m")
	if err := m.load(path, blanks, map[string]bool{}); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manifest) load(path string, blanks *rdf.BlankNodes, seen map[string]bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("manifest %s: %w", path, err)
	}
	if seen[abs] {
		return nil
	}
	seen[abs] = true
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	defer f.Close()
	blanks.Reset()
	dec := turtle.NewDecoder(f, rdf.DecodeOptions{Base: FileIRI(abs), Blanks: blanks})
	var manifests []rdf.Term
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("manifest %s: %w", abs, err)
		}
		byPred := m.props[q.S]
		if byPred == nil {
			byPred = map[string][]rdf.Term{}
			m.props[q.S] = byPred
		}
		byPred[q.P.Value] = append(byPred[q.P.Value], q.O)
		if q.P.Value == rdf.RDFType && q.O.Value == mfManifest {
			manifests = append(manifests, q.S)
		}
	}
	for _, man := range manifests {
		for _, l := range m.Objects(man, mfInclude) {
			for _, inc := range m.List(l) {
				p := LocalPath(inc)
				if p == "" {
					return fmt.Errorf("manifest %s: included manifest %s is not a local file", abs, inc)
				}
				if err := m.load(p, blanks, seen); err != nil {
					return err
				}
			}
		}
		for _, l := range m.Objects(man, mfEntries) {
			for _, e := range m.List(l) {
				m.Tests = append(m.Tests, m.test(e))
			}
		}
	}
	return nil
}

func (m *Manifest) test(e rdf.Term) Test {
	t := Test{IRI: e.Value, Name: m.Object(e, mfName).Value, Action: m.Object(e, mfAction), Result: m.Object(e, mfResult)}
	for _, ty := range m.Objects(e, rdf.RDFType) {
		t.Types = append(t.Types, ty.Value)
	}
	if a := m.Object(e, RDFT+"approval"); !a.IsZero() {
		t.Approval = a.Value
	} else {
		t.Approval = m.Object(e, DAWGT+"approval").Value
	}
	return t
}

// Objects returns the objects of (s, pIRI) in document order.
func (m *Manifest) Objects(s rdf.Term, pIRI string) []rdf.Term { return m.props[s][pIRI] }

// Object returns the first object of (s, pIRI), or the zero term.
func (m *Manifest) Object(s rdf.Term, pIRI string) rdf.Term {
	if o := m.props[s][pIRI]; len(o) > 0 {
		return o[0]
	}
	return rdf.Term{}
}

// List returns the members of the RDF collection starting at head. A malformed or cyclic list ends where it
// breaks.
func (m *Manifest) List(head rdf.Term) []rdf.Term {
	var out []rdf.Term
	seen := map[rdf.Term]bool{}
	for !head.IsZero() && head.Value != rdf.RDFNil && !seen[head] {
		seen[head] = true
		first := m.Object(head, rdf.RDFFirst)
		if first.IsZero() {
			break
		}
		out = append(out, first)
		head = m.Object(head, rdf.RDFRest)
	}
	return out
}

// FileIRI returns the file: IRI of an absolute local path.
func FileIRI(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return u.String()
}

// LocalPath turns a file IRI from a manifest into a local path; "" when t is not a file IRI.
func LocalPath(t rdf.Term) string {
	if !t.IsIRI() {
		return ""
	}
	u, err := url.Parse(t.Value)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// suiteRoots maps where each suite sits under the suites folder to where it is published; the published IRI is
// the base the expected results were written against.
var suiteRoots = []struct{ local, published string }{
	{"/rdf/", "https://w3c.github.io/rdf-tests/rdf/"},
	{"/sparql/", "https://w3c.github.io/rdf-tests/sparql/"},
	{"/json-ld/", "https://w3c.github.io/json-ld-api/tests/"},
	{"/rdf-canon/", "https://w3c.github.io/rdf-canon/tests/"},
}

// W3CBase maps a local path under the suites folder to the IRI the file is published at (README.md of the suites:
// <suites>/rdf/... -> https://w3c.github.io/rdf-tests/rdf/..., and likewise sparql/, json-ld/, rdf-canon/). The
// suites folder is recognised by its README-rdf-tests.md; a path outside any suite gets its file: IRI.
func W3CBase(localPath string) string {
	abs, err := filepath.Abs(localPath)
	if err != nil {
		abs = localPath
	}
	slash := filepath.ToSlash(abs)
	best, bestAt := -1, -1
	for i, r := range suiteRoots {
		// The innermost match wins only if its parent is the suites folder.
		for at := strings.Index(slash, r.local); at >= 0; {
			if isSuitesDir(slash[:at]) && at > bestAt {
				best, bestAt = i, at
			}
			next := strings.Index(slash[at+1:], r.local)
			if next < 0 {
				break
			}
			at += 1 + next
		}
	}
	if best < 0 {
		// No README to recognise the folder by (a partial copy): trust the outermost suite-looking folder.
		for i, r := range suiteRoots {
			if at := strings.Index(slash, r.local); at >= 0 && (best < 0 || at < bestAt) {
				best, bestAt = i, at
			}
		}
	}
	if best < 0 {
		return FileIRI(abs)
	}
	return suiteRoots[best].published + slash[bestAt+len(suiteRoots[best].local):]
}

func isSuitesDir(dir string) bool {
	_, err := os.Stat(filepath.Join(filepath.FromSlash(dir), "README-rdf-tests.md"))
	return err == nil
}
