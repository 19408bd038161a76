package html

import (
	"github.com/ldhub/ldhub/content/rdf"
)

// QueryPage is the page of a SPARQL query's answer at a publication's (or version's) endpoint: the query in its
// form again, the answer (a table of solutions, ASK's boolean, a graph written as Turtle) or why the query was
// refused, and links to the whole answer in every format.
type QueryPage struct {
	Crumbs      []Crumb // from the hub down to the publication (or version) queried
	Publication Crumb
	Endpoint    string // the URL path the form sends the query to
	Query       string
	Form        string // SELECT, ASK, CONSTRUCT or DESCRIBE ("" when the query was refused before parsing)
	Vars        []string
	Rows        [][]rdf.Term // a zero Term is unbound
	Boolean     *bool
	Turtle      string // a CONSTRUCT or DESCRIBE answer
	Triples     int
	Truncated   string // why the answer was cut; "" when whole
	Error       string // why the query was refused or failed
	Downloads   []Dump // the answer in each format (Format, MediaType, URL)
}

type queryView struct {
	Crumbs      []crumb      `json:"crumbs"`
	Publication linkView     `json:"publication"`
	Endpoint    string       `json:"endpoint"`
	Query       string       `json:"query"`
	Form        string       `json:"form,omitempty"`
	Vars        []string     `json:"vars,omitempty"`
	Rows        [][]termView `json:"rows,omitempty"`
	Count       int          `json:"count"`
	Boolean     string       `json:"boolean,omitempty"`
	Turtle      string       `json:"turtle,omitempty"`
	Truncated   string       `json:"truncated,omitempty"`
	Error       string       `json:"error,omitempty"`
	Downloads   []dumpView   `json:"downloads"`
}

// queryPage turns q into the page Hugo renders.
func queryPage(q *QueryPage) page {
	v := queryView{Crumbs: viewCrumbs(q.Crumbs), Publication: linkView{Name: q.Publication.Name, Href: q.Publication.Href},
		Endpoint: q.Endpoint, Query: q.Query, Form: q.Form, Vars: q.Vars, Turtle: q.Turtle, Truncated: q.Truncated,
		Error: q.Error, Downloads: []dumpView{}}
	switch {
	case q.Boolean != nil && *q.Boolean:
		v.Boolean, v.Count = "true", 1
	case q.Boolean != nil:
		v.Boolean, v.Count = "false", 1
	case q.Form == "SELECT":
		v.Count = len(q.Rows)
	default:
		v.Count = q.Triples
	}
	for _, row := range q.Rows {
		out := make([]termView, len(row))
		for i, t := range row {
			if !t.IsZero() {
				out[i] = viewTerm(t, nil, nil, wellKnown)
			}
		}
		v.Rows = append(v.Rows, out)
	}
	for _, d := range q.Downloads {
		v.Downloads = append(v.Downloads, dumpView{Format: nameOr(d.Format, d.MediaType), MediaType: d.MediaType, Href: d.URL})
	}
	title := "Query " + q.Publication.Name
	if q.Error != "" {
		title = "Query refused: " + q.Publication.Name
	}
	return page{Title: title, Layout: "query", LD: v}
}
