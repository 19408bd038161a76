package html

import (
	"sort"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/vocab"
)

// Publication and version pages are static files, so they cannot be rendered per reader as resource pages are.
// Instead each is rendered once in the hub's language and once per other language its labels and definitions come
// in (at most MaxPageLanguages of them, the most used first): the page in language L picks every field in L, then
// the hub's language, then English, then untagged text. A page's languages are named by their primary subtag
// (codec.LanguageKey), so "pt-BR" and "pt-PT" texts share the "pt" page; the web server (or ldhub) picks the page whose
// key matches the reader's first Accept-Language range it can (site/filecache, site/webconf).

// MaxPageLanguages bounds the language variants of one publication or version page besides the one in the hub's
// language: each variant is a full page render, so a vocabulary labelled in 40 languages gets the 12 most used.
const MaxPageLanguages = 12

// PageLanguages are the keys of the variants a page documenting d gets besides the one in the hub's language
// (hub, a tag): the languages of its labels and definitions, most texts first (ties in key order), at most
// MaxPageLanguages. None when d has texts in fewer than two languages, counting the hub's.
func PageLanguages(d *vocab.Doc, hub string) []string {
	if d.Empty() {
		return nil
	}
	hubKey := codec.LanguageKey(nameOr(hub, "en"))
	n := map[string]int{}
	count := func(ts []vocab.Text) {
		for _, t := range ts {
			if k := codec.LanguageKey(t.Lang); k != "" {
				n[k]++
			}
		}
	}
	for _, t := range d.Terms {
		for _, k := range []string{vocab.Label, vocab.Definition, vocab.Comment} {
			count(t.Text[k])
		}
	}
	if d.Ontology != nil {
		for _, k := range []string{vocab.Title, vocab.Label, vocab.Description, vocab.Comment} {
			count(d.Ontology.Text[k])
		}
	}
	var keys []string
	for k := range n {
		if k != hubKey {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 || len(keys) == 1 && n[hubKey] == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool {
		if n[keys[i]] != n[keys[j]] {
			return n[keys[i]] > n[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > MaxPageLanguages {
		keys = keys[:MaxPageLanguages]
	}
	sort.Strings(keys)
	return keys
}

// switchLinks is a page's language switch: one link per language key (the hub's and the variants', in key order)
// to self?lang=<key> (for a listing page, terms, the same listing page in that language), the current one marked.
func switchLinks(self string, keys []string, current string, terms TermsPage) []langLink {
	out := make([]langLink, 0, len(keys))
	for _, k := range keys {
		href := self + "?lang=" + k
		if terms.Section != "" {
			href = ListingURL(self, k, terms)
		}
		out = append(out, langLink{Tag: k, Href: href, Current: k == current})
	}
	return out
}
