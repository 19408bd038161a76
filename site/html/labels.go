package html

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/ldhub/ldhub/content/vocab"
)

// The labels index of a publication page that cannot document every term (SectionPages): every term's label, name
// and place (the page of its section's full listing and its anchor there), one compact JSON file per page
// language, which the theme's script loads when a reader first uses the term filter, so that the filter finds
// any term of the publication without asking the server anything else. Pages read without it.
//
// The file is an object:
//
//	{"count": <terms>, "sections": [{"title": "Concepts", "href": "<page>?terms=concept&page="}, …],
//	 "terms": [[<label>, <name>, <section index>, <page number>(, <anchor>)], …]}
//
// A term's link is its section's href, the page number, "#" and the anchor; the anchor is left out when it is the
// name after its last '#', '/' or ':' (DefaultAnchor), which it is for all but clashing local names. Terms come
// in the order of the listing pages: by section, then label; a term of two kinds is listed once, under the first.

// LabelsIndexVersion is the format of the labels index (its "v"), for a theme's script to check.
const LabelsIndexVersion = 1

// LabelsURL is the URL of the labels index of the page at self in the language whose key is lang ("": the hub's).
func LabelsURL(self, lang string) string {
	if lang == "" {
		return self + "?terms=index"
	}
	return self + "?terms=index&lang=" + url.QueryEscape(lang)
}

// ListingURL is the URL of a page of a section's full listing below the page at self, in the language whose key
// is lang ("": the hub's): <self>?lang=<key>&terms=<section>&page=<n>.
func ListingURL(self, lang string, p TermsPage) string {
	if lang == "" {
		return TermsURL(self, p)
	}
	return self + "?lang=" + url.QueryEscape(lang) + "&terms=" + url.QueryEscape(p.Section) + "&page=" + strconv.Itoa(p.N)
}

// DefaultAnchor is the anchor a labels index leaves out: name after its last '#', '/' or ':'.
func DefaultAnchor(name string) string { return name[strings.LastIndexAny(name, "#/:")+1:] }

// LabelsIndex adds the labels index of the publication or version page pp (in pp.Language, "" for the batch's)
// to the batch, written to <out>/labels.json (and labels.json.gz) by RenderBatch. It adds nothing when the page documents every term
// (no SectionPages): its own filter covers them. The index links the pages of the sections' full listings in
// the page's language (ListingURL).
func (b *Batch) LabelsIndex(out string, pp PublicationPage) error {
	if pp.Vocab.Empty() || SectionPages(pp.Vocab, b.TermsPerPage) == nil {
		return nil
	}
	if len(pp.Publication.Versions) == 0 {
		return fmt.Errorf("html: publication %s: no version", pp.Href)
	}
	data, err := b.labelsIndex(pp)
	if err != nil {
		return err
	}
	// A .gz sibling, as a large dump has: the index is megabytes for 100 000 terms, and compresses several times.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := b.addFile(out, "labels.json", data); err != nil {
		return err
	}
	return b.addFile(out, "labels.json.gz", gz.Bytes())
}

func (b *Batch) labelsIndex(pp PublicationPage) ([]byte, error) {
	d := pp.Vocab
	base := pp.Publication.URI
	self := pp.Href
	if !pp.Latest && pp.Shown >= 0 && pp.Shown < len(pp.Publication.Versions) {
		self = pp.Publication.Versions[pp.Shown].Href
	}
	ls := b.languageOrder(pp)
	lay := b.layout(d, ls)
	perPage := cmp.Or(b.TermsPerPage, DefaultTermsPerPage)
	type section struct {
		Title string `json:"title"`
		Href  string `json:"href"`
	}
	var buf bytes.Buffer
	buf.Grow(len(d.Terms) * 48)
	fmt.Fprintf(&buf, `{"v":%d,"count":%d,"sections":`, LabelsIndexVersion, len(d.Terms))
	var secs []section
	var kinds []vocab.Kind
	for _, k := range vocab.Kinds {
		if len(lay.bySection[k]) > 0 {
			href := ListingURL(self, pp.Language, TermsPage{Section: string(k), N: 1})
			href, ok := strings.CutSuffix(href, "1")
			if !ok || !strings.HasSuffix(href, "page=") {
				return nil, fmt.Errorf("html: a listing page's URL %q does not end with its page number", href)
			}
			secs = append(secs, section{Title: kindTitles[k], Href: href})
			kinds = append(kinds, k)
		}
	}
	sj, err := json.Marshal(secs)
	if err != nil {
		return nil, err
	}
	buf.Write(sj)
	buf.WriteString(`,"terms":[`)
	entered := make([]bool, len(d.Terms))
	first := true
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for si, k := range kinds {
		ids := lay.bySection[k]
		for from, pg := 0, 1; from < len(ids); from, pg = from+perPage, pg+1 {
			n := newDocNamerIndexed(d, ls, base, self, lay.index)
			page := ids[from:min(len(ids), from+perPage)]
			n.claimAnchors([]shown{{k, page}}, base)
			for _, i := range page {
				if entered[i] {
					continue
				}
				entered[i] = true
				iri := d.Terms[i].IRI
				name := compact(iri, n.prefixes)
				entry := []any{n.label(iri).Value, name, si, pg}
				if a := n.anchors[iri]; a != DefaultAnchor(name) {
					entry = append(entry, a)
				}
				if !first {
					buf.WriteByte(',')
				}
				first = false
				if err := enc.Encode(entry); err != nil {
					return nil, err
				}
				buf.Truncate(buf.Len() - 1) // Encode's newline
			}
		}
	}
	buf.WriteString("]}\n")
	return buf.Bytes(), nil
}
