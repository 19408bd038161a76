package protocol

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
	"github.com/ldhub/ldhub/sparqlsvc/results"
)

// PageRenderer writes answers as pages for people: a results table, a graph's statements. The engine knows
// nothing of HTML; the site that mounts the endpoint supplies it (Handler.Pages).
type PageRenderer interface {
	// RenderAnswer writes the page of a, which holds either an answer or why the query was refused (a.Err); with
	// neither (a.Form "" and a.Err nil: a browser opened the endpoint without a query) it writes the query form.
	RenderAnswer(w http.ResponseWriter, r *http.Request, a *Answer)
}

// MaxPageResults bounds the rows or triples an answer page holds: a page is for reading, the formats it links
// are for everything.
const MaxPageResults = 1000

// pageType is the media type that selects a page. It is offered after every other format, so a client that
// accepts anything (curl's */*) still gets SPARQL results; browsers, which rank text/html first, get the page.
const pageType = "text/html"

// FormatParam names the query parameter that picks the answer's media type instead of Accept, so that a plain
// link (a page's download links, a GET form) can ask for a format.
const FormatParam = "format"

// formatParam is the media type FormatParam names, "" when it names none. Other values are other protocols'
// (SPARQLWrapper sends format=json for Joseki and Virtuoso) and are left to Accept.
func formatParam(params map[string][]string) string {
	if f := params[FormatParam]; len(f) == 1 && strings.Contains(f[0], "/") {
		return f[0]
	}
	return ""
}

// Answer is a query's answer gathered for a page (at most MaxPageResults rows or triples), or the reason the
// query was refused.
type Answer struct {
	Query    string
	Form     string       // SELECT, ASK, CONSTRUCT or DESCRIBE; "" when the query was refused before parsing
	Vars     []string     // SELECT
	Rows     [][]rdf.Term // SELECT; a zero Term is unbound
	Boolean  *bool        // ASK
	Triples  []rdf.Quad   // CONSTRUCT, DESCRIBE
	Prefixes []rdf.Prefix // the query's, for writing the triples
	// Truncated says why the answer was cut ("" when it is whole).
	Truncated string
	// Formats are the media types the answer can be downloaded in (with FormatParam).
	Formats []string
	// Status and Err describe a refused or failed query (Err nil: the answer is above).
	Status int
	Err    error
}

// wantsPage reports whether the request asks for a page: by FormatParam, or by an Accept that ranks text/html
// above every answer format. Only GET asks for pages: a POSTed query is a program's.
func (h *Handler) wantsPage(r *http.Request, params map[string][]string) bool {
	if h.Pages == nil || r.Method == http.MethodPost {
		return false
	}
	if f := formatParam(params); f != "" {
		return f == pageType
	}
	offers := append(append(results.Offers(), h.rdfOffers()...), pageType)
	mt, _ := codec.Negotiate(defaultAccept(r.Header.Get("Accept")), offers)
	return mt == pageType
}

// answerPage runs the query for a page and hands the answer, or the reason it was refused, to h.Pages.
func (h *Handler) answerPage(w http.ResponseWriter, r *http.Request, query string, params map[string][]string) {
	w.Header().Set("Cache-Control", "no-store")
	a := &Answer{Query: query}
	if err := h.gather(w, r, query, params, a); err != nil {
		a.Status, a.Err = http.StatusInternalServerError, err
		var se statusError
		if errors.As(err, &se) {
			a.Status = se.HTTPStatus()
		} else if h.Log != nil {
			h.Log.ErrorContext(r.Context(), "sparql query failed", "path", r.URL.Path, "err", err)
		}
	}
	h.Pages.RenderAnswer(w, r, a)
}

func (h *Handler) gather(w http.ResponseWriter, r *http.Request, query string, params map[string][]string, a *Answer) error {
	if query == "" {
		return missingQuery(params)
	}
	q, err := h.parse(r, query)
	if err != nil {
		return err
	}
	a.Form, a.Prefixes = q.Form.String(), q.Prefixes
	if a.Form == "SELECT" || a.Form == "ASK" {
		a.Formats = results.Offers()
	} else {
		a.Formats = h.rdfOffers()
	}
	ctx, ds, done, lim, err := h.open(w, r, params, q)
	if err != nil {
		return err
	}
	defer done()
	max := min(lim.MaxResults, MaxPageResults)
	if max <= 0 {
		max = MaxPageResults
	}
	err = ds.Stream(ctx, q, eval.Options{Timeout: lim.Timeout, MaxRows: lim.MaxRows, MaxMemory: lim.MaxMemory, MaxResults: max, Cores: h.Gate.Cores(), Memory: h.Gate.Memory()}, pageSink{a})
	switch {
	case err == nil:
	case errors.Is(err, eval.ErrTruncated):
		a.Truncated = fmt.Sprintf("the page shows the first %d; download the answer for all of it, or add LIMIT/OFFSET", max)
	case errors.Is(err, eval.ErrTimeout):
		a.Truncated = fmt.Sprintf("the query ran longer than its limit of %s", lim.Timeout)
	case errors.Is(err, eval.ErrServerMemory):
		a.Truncated = serverMemoryReason(h.Gate)
	case errors.Is(err, eval.ErrTooLarge):
		a.Truncated = fmt.Sprintf("the query needs more memory than its budget of %d MiB allows; add LIMIT or narrow the pattern", lim.MaxMemory>>20)
	case errors.Is(err, eval.ErrService):
		return newError(http.StatusBadRequest, err.Error())
	case errors.Is(context.Cause(ctx), errYielded):
		a.Truncated = h.yielded()
	default:
		return err
	}
	return nil
}

// pageSink keeps an answer in memory; eval's MaxResults bounds it.
type pageSink struct{ a *Answer }

func (s pageSink) Begin(vars []string) error {
	s.a.Vars = append([]string(nil), vars...)
	return nil
}

func (s pageSink) Row(v []rdf.Term) error {
	s.a.Rows = append(s.a.Rows, append([]rdf.Term(nil), v...))
	return nil
}

func (s pageSink) Boolean(v bool) error {
	s.a.Boolean = &v
	return nil
}

func (s pageSink) Triple(t rdf.Quad) error {
	s.a.Triples = append(s.a.Triples, t)
	return nil
}

// FormatLink is the URL of the answer to the request's query in media type mt: the request's own URL with
// FormatParam set.
func FormatLink(r *http.Request, mt string) string {
	q := r.URL.Query()
	q.Set(FormatParam, mt)
	return r.URL.Path + "?" + strings.ReplaceAll(q.Encode(), "+", "%20")
}
