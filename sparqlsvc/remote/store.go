// Package remote is the SPARQL backend that runs queries on an external SPARQL 1.1 store (Virtuoso first) instead
// of ldhub's own engine, for publications too large for one process to index.
//
// Queries stay ldhub's: the protocol handler parses them, checks who may see what, and resolves the dataset into
// store graphs (Dataset); Rewrite replaces the query's dataset and GRAPH patterns so the store can only reach those
// graphs, and the answer is read from the store as it streams and written to the caller by ldhub's own writers, in
// every format the built-in engine offers, under the same limits.
//
// Writes use the SPARQL 1.1 Graph Store HTTP Protocol (PUT of N-Triples replaces a graph) and SPARQL 1.1 Update
// (DROP, and the bookkeeping of what is loaded), authenticated with HTTP Digest (what Virtuoso's /sparql-auth and
// /sparql-graph-crud-auth ask for) or Basic when the store asks for that.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/sparqlsvc/algebra"
	"github.com/ldhub/ldhub/sparqlsvc/eval"
)

// Config says where the store is.
type Config struct {
	// QueryURL is the SPARQL 1.1 Query endpoint (Virtuoso: http://host:8890/sparql).
	QueryURL string
	// UpdateURL is the SPARQL 1.1 Update endpoint; empty derives it from a QueryURL ending in /sparql as Virtuoso
	// lays them out (/sparql-auth), else QueryURL.
	UpdateURL string
	// GraphURL is the Graph Store HTTP Protocol endpoint; empty derives Virtuoso's /sparql-graph-crud-auth
	// (else QueryURL).
	GraphURL string
	// User and Password authenticate updates (Digest or Basic, as the store asks). Queries are sent without them.
	User, Password string
	// Client sends the requests; nil is a client without a global timeout (queries have their own).
	Client *http.Client
}

// Store is a client of one external SPARQL store. It is safe for concurrent use.
type Store struct {
	c      Config
	client *http.Client
	auth   *digest
}

// New checks the configuration and returns a client.
func New(c Config) (*Store, error) {
	u, err := url.Parse(c.QueryURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote: the store's query endpoint %q is not an http(s) URL", c.QueryURL)
	}
	if c.UpdateURL == "" {
		c.UpdateURL = virtuosoSibling(c.QueryURL, "/sparql-auth")
	}
	if c.GraphURL == "" {
		c.GraphURL = virtuosoSibling(c.QueryURL, "/sparql-graph-crud-auth")
	}
	client := c.Client
	if client == nil {
		client = &http.Client{}
	}
	return &Store{c: c, client: client, auth: &digest{user: c.User, password: c.Password}}, nil
}

func virtuosoSibling(query, path string) string {
	if base, ok := strings.CutSuffix(query, "/sparql"); ok {
		return base + path
	}
	return query
}

// Config returns the configuration in effect, with the derived endpoints filled in.
func (s *Store) Config() Config { return s.c }

// StoreError is a failure of the store itself (unreachable, or refusing a query ldhub accepted): 502 to the caller.
type StoreError struct {
	Status int
	Msg    string
}

func (e *StoreError) Error() string   { return e.Msg }
func (e *StoreError) HTTPStatus() int { return http.StatusBadGateway }

func storeError(resp *http.Response, what string) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	msg := strings.Join(strings.Fields(string(b)), " ")
	return &StoreError{Status: resp.StatusCode, Msg: fmt.Sprintf("the SPARQL store answered %s with %s: %s", what, resp.Status, msg)}
}

// Query runs a query over the store graphs of d: it implements the protocol handler's Backend interface.
type Query struct {
	Store   *Store
	Dataset Dataset
}

// Stream rewrites q for the dataset, sends it and streams the answer to sink. opt.Timeout and opt.MaxResults hold
// as with the built-in engine; memory is the store's to bound (ldhub holds one row at a time).
func (qr *Query) Stream(ctx context.Context, q *algebra.Query, opt eval.Options, sink eval.Sink) error {
	if q.Syntax == nil {
		return errors.New("remote: the query has no syntax tree to send")
	}
	vars := q.ResultVars()
	text, err := Rewrite(q.Syntax, qr.Dataset)
	if err != nil {
		return err
	}
	parent := ctx
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	err = qr.Store.run(ctx, q.Form, text, vars, opt.MaxResults, sink)
	if err != nil && ctx.Err() != nil && parent.Err() == nil {
		return eval.ErrTimeout
	}
	return err
}

// run sends query text and delivers the answer.
func (s *Store) run(ctx context.Context, form algebra.Form, text string, vars []algebra.Var, max int, sink eval.Sink) error {
	accept := "application/sparql-results+json"
	if form == algebra.Construct || form == algebra.Describe {
		accept = "application/n-triples"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.QueryURL, strings.NewReader(url.Values{"query": {text}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", accept)
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &StoreError{Msg: "the SPARQL store cannot be reached: " + err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return storeError(resp, "a query")
	}
	switch form {
	case algebra.Construct, algebra.Describe:
		return readTriples(resp.Body, max, sink)
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = string(v)
	}
	return readSolutions(resp.Body, form, names, max, sink)
}

// readTriples streams an N-Triples answer.
func readTriples(r io.Reader, max int, sink eval.Sink) error {
	dec := ntriples.NewDecoder(r, rdf.DecodeOptions{})
	for n := 0; ; n++ {
		t, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &StoreError{Msg: "the SPARQL store's answer does not read as N-Triples: " + err.Error()}
		}
		if max > 0 && n >= max {
			return eval.ErrTruncated
		}
		if err := sink.Triple(t); err != nil {
			return err
		}
	}
}

type jsonTerm struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Lang     string `json:"xml:lang"`
	Datatype string `json:"datatype"`
}

// readSolutions streams SPARQL 1.1 JSON results: the bindings are decoded one at a time, so the answer is never
// held. The answer's columns are the query's own projection (vars), matched to the store's by name.
func readSolutions(r io.Reader, form algebra.Form, vars []string, max int, sink eval.Sink) error {
	dec := json.NewDecoder(r)
	bad := func(err error) error {
		return &StoreError{Msg: "the SPARQL store's answer does not read as SPARQL JSON results: " + err.Error()}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return bad(fmt.Errorf("not an object (%v)", err))
	}
	began := false
	begin := func() error {
		if began {
			return nil
		}
		began = true
		return sink.Begin(vars)
	}
	idx := make(map[string]int, len(vars))
	for i, v := range vars {
		idx[v] = i
	}
	row := make([]rdf.Term, len(vars))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return bad(err)
		}
		switch tok {
		case "boolean":
			var b bool
			if err := dec.Decode(&b); err != nil {
				return bad(err)
			}
			return sink.Boolean(b)
		case "results":
			if form != algebra.Select {
				return bad(errors.New("solutions for a query that is not SELECT"))
			}
			if err := begin(); err != nil {
				return err
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				return bad(fmt.Errorf("results is not an object (%v)", err))
			}
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return bad(err)
				}
				if key != "bindings" {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return bad(err)
					}
					continue
				}
				if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
					return bad(fmt.Errorf("bindings is not an array (%v)", err))
				}
				for n := 0; dec.More(); n++ {
					var b map[string]jsonTerm
					if err := dec.Decode(&b); err != nil {
						return bad(err)
					}
					if max > 0 && n >= max {
						return eval.ErrTruncated
					}
					clear(row)
					for name, jt := range b {
						if i, ok := idx[name]; ok {
							row[i] = jt.term()
						}
					}
					if err := sink.Row(row); err != nil {
						return err
					}
				}
				if _, err := dec.Token(); err != nil {
					return bad(err)
				}
			}
			return nil
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return bad(err)
			}
		}
	}
	if form == algebra.Select {
		return begin() // an answer without results: no solutions
	}
	return bad(errors.New("no boolean in the answer to ASK"))
}

func (j jsonTerm) term() rdf.Term {
	switch j.Type {
	case "uri":
		return rdf.IRI(j.Value)
	case "bnode":
		return rdf.Blank(blankLabel(j.Value))
	}
	switch {
	case j.Lang != "":
		return rdf.LangString(j.Value, j.Lang)
	case j.Datatype != "":
		return rdf.Literal(j.Value, j.Datatype)
	}
	return rdf.String(j.Value)
}

// blankLabel turns a store's blank-node id (Virtuoso: "nodeID://b10006") into a label every syntax can write.
func blankLabel(v string) string {
	v = strings.TrimPrefix(v, "nodeID://")
	b := []byte(v)
	for i, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return "b" + string(b)
	}
	return string(b)
}

// Update runs a SPARQL 1.1 Update request.
func (s *Store) Update(ctx context.Context, update string) error {
	body := url.Values{"update": {update}}.Encode()
	resp, err := s.send(ctx, http.MethodPost, s.c.UpdateURL, "application/x-www-form-urlencoded", func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(body)), nil
	}, int64(len(body)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return storeError(resp, "an update")
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

// PutGraph replaces the store graph named graph with the size bytes of N-Triples that open returns (opened again
// if the request must be repeated for authentication), through the Graph Store HTTP Protocol.
func (s *Store) PutGraph(ctx context.Context, graph string, open func() (io.ReadCloser, error), size int64) error {
	return s.graphRequest(ctx, http.MethodPut, graph, open, size)
}

// PostGraph adds the size bytes of N-Triples that open returns to the store graph named graph (Graph Store HTTP
// Protocol POST). Blank-node labels are scoped to one request, as in any RDF document.
func (s *Store) PostGraph(ctx context.Context, graph string, open func() (io.ReadCloser, error), size int64) error {
	return s.graphRequest(ctx, http.MethodPost, graph, open, size)
}

func (s *Store) graphRequest(ctx context.Context, method, graph string, open func() (io.ReadCloser, error), size int64) error {
	u := s.c.GraphURL + "?" + url.Values{"graph-uri": {graph}, "graph": {graph}}.Encode()
	if s.c.GraphURL == s.c.QueryURL {
		u = s.c.GraphURL + "?" + url.Values{"graph": {graph}}.Encode()
	}
	resp, err := s.send(ctx, method, u, "application/n-triples", open, size)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return storeError(resp, "a graph upload")
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

// Select runs a SELECT query whose answer is small (bookkeeping, tests) as it is, without any rewriting, and
// returns its rows: the values of vars by name.
func (s *Store) Select(ctx context.Context, query string, vars ...string) ([]map[string]rdf.Term, error) {
	c := &collect{}
	av := make([]algebra.Var, len(vars))
	for i, v := range vars {
		av[i] = algebra.Var(v)
	}
	if err := s.run(ctx, algebra.Select, query, av, 0, c); err != nil {
		return nil, err
	}
	return c.rows, nil
}

type collect struct {
	vars []string
	rows []map[string]rdf.Term
}

func (c *collect) Begin(vars []string) error { c.vars = vars; return nil }
func (c *collect) Row(v []rdf.Term) error {
	m := make(map[string]rdf.Term, len(v))
	for i, t := range v {
		if !t.IsZero() {
			m[c.vars[i]] = t
		}
	}
	c.rows = append(c.rows, m)
	return nil
}
func (c *collect) Boolean(bool) error    { return nil }
func (c *collect) Triple(rdf.Quad) error { return nil }
