package remote_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/httpx/apierr"
	"github.com/ldhub/ldhub/sparqlsvc/protocol"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
)

var virtuoso virtuosotest.Shared

func TestMain(m *testing.M) { os.Exit(virtuoso.Run(m)) }

const (
	pubGraph     = "http://hub.test/g/r/pub/versions/1"
	pubURI       = "http://hub.test/g/r/pub"
	otherGraph   = "http://hub.test/g/r/other/versions/2"
	privateGraph = "http://hub.test/secret/r/priv/versions/1"
	secret       = "TOP-SECRET-VALUE"
)

// store starts (once) the shared Virtuoso and loads three version graphs through the Graph Store protocol with
// Digest authentication: two the caller may see and one it may not, whose every triple carries the secret.
func store(t *testing.T) *remote.Store {
	t.Helper()
	v := virtuoso.Get(t)
	s, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		t.Fatal(err)
	}
	put := func(graph, nt string) {
		t.Helper()
		err := s.PutGraph(context.Background(), graph, func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(nt)), nil
		}, int64(len(nt)))
		if err != nil {
			t.Fatal(err)
		}
	}
	put(pubGraph, `<http://hub.test/g/r/pub/Bridge> <http://www.w3.org/2000/01/rdf-schema#label> "Bridge"@en .
<http://hub.test/g/r/pub/Tunnel> <http://www.w3.org/2000/01/rdf-schema#label> "Tunnel"@en .
<http://hub.test/g/r/pub/Bridge> <http://hub.test/spans> "12"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://hub.test/g/r/pub/Bridge> <http://hub.test/near> _:x .
_:x <http://www.w3.org/2000/01/rdf-schema#label> "river" .
`)
	put(otherGraph, `<http://hub.test/g/r/other/Road> <http://www.w3.org/2000/01/rdf-schema#label> "Road" .
`)
	put(privateGraph, `<http://hub.test/g/r/pub/Bridge> <http://hub.test/cost> "`+secret+`" .
<http://hub.test/secret/r/priv/X> <http://www.w3.org/2000/01/rdf-schema#label> "`+secret+`" .
`)
	return s
}

// endpoint serves the protocol handler over the store with the dataset a caller that may see pub and other gets:
// pub as the default graph, and as named graphs pub under its publication URI and other under its version URI.
func endpoint(t *testing.T, s *remote.Store) *httptest.Server {
	return endpointOver(t, s, remote.Dataset{
		Default: []string{pubGraph},
		Named:   []remote.NamedGraph{{Name: pubURI, Graph: pubGraph}, {Name: otherGraph, Graph: otherGraph}},
	})
}

func endpointOver(t *testing.T, s *remote.Store, ds remote.Dataset) *httptest.Server {
	h := &protocol.Handler{
		WriteError: apierr.Write,
		Codecs:     codec.Default(),
		Endpoint:   func(*http.Request) string { return pubURI + "/sparql" },
		Resolve: func(ctx context.Context, r *http.Request, d protocol.DatasetRequest) (protocol.Backend, func(), error) {
			return &remote.Query{Store: s, Dataset: ds}, func() {}, nil
		},
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func ask(t *testing.T, srv *httptest.Server, query, accept string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(url.Values{"query": {query}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestQueryThroughStore(t *testing.T) {
	srv := endpoint(t, store(t))
	cases := []struct{ query, accept, want string }{
		{`SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY STR(?l)`, "text/csv", "l\r\nBridge\r\nTunnel\r\nriver\r\n"},
		{`SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`, "text/tab-separated-values", "?n\n5\n"},
		{`ASK { <http://hub.test/g/r/pub/Bridge> <http://hub.test/spans> 12 }`, "application/sparql-results+json", `"boolean":true`},
		{`SELECT ?g ?l WHERE { GRAPH ?g { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } } ORDER BY STR(?l)`, "text/csv",
			"g,l\r\n" + pubURI + ",Bridge\r\n" + otherGraph + ",Road\r\n" + pubURI + ",Tunnel\r\n" + pubURI + ",river\r\n"},
		{`SELECT * WHERE { GRAPH <` + pubURI + `> { ?s <http://hub.test/spans> ?n } }`, "text/csv", "s,n\r\nhttp://hub.test/g/r/pub/Bridge,12\r\n"},
		{`CONSTRUCT { ?s <http://ex/l> ?l } WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> "Tunnel"@en, ?l }`, "application/n-triples",
			"<http://hub.test/g/r/pub/Tunnel> <http://ex/l> \"Tunnel\"@en .\n"},
	}
	for _, c := range cases {
		status, body := ask(t, srv, c.query, c.accept)
		if status != http.StatusOK || !strings.Contains(body, c.want) {
			t.Errorf("%s\n(%s) got %d %q, want %q", c.query, c.accept, status, body, c.want)
		}
	}
	// Every format the built-in engine offers comes out of the store's answer.
	for _, accept := range []string{"application/sparql-results+json", "application/sparql-results+xml", "text/csv", "text/tab-separated-values"} {
		status, body := ask(t, srv, `SELECT ?s ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l }`, accept)
		if status != http.StatusOK || !strings.Contains(body, "Tunnel") {
			t.Errorf("SELECT as %s: %d %q", accept, status, body)
		}
	}
	for _, accept := range []string{"text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json", "application/n-quads", "application/trig"} {
		status, body := ask(t, srv, `DESCRIBE <http://hub.test/g/r/pub/Tunnel>`, accept)
		if status != http.StatusOK || !strings.Contains(body, "Tunnel") {
			t.Errorf("DESCRIBE as %s: %d %q", accept, status, body)
		}
	}
}

// TestRewritingKeepsPrivateGraphsOut is the adversary's test: a caller who may see pub and other tries every way a
// query can name a graph, and nothing of the private graph comes back, in any status or body.
func TestRewritingKeepsPrivateGraphsOut(t *testing.T) {
	s := store(t)
	// Without named graphs there is no FROM NAMED, and Virtuoso ranges GRAPH ?g over every graph it holds: only the
	// rewriting stands between the query and the private graph.
	for _, srv := range []*httptest.Server{endpoint(t, s), endpointOver(t, s, remote.Dataset{Default: []string{pubGraph}})} {
		probe(t, s, srv)
	}
	// The caller's own named graphs still answer, under the names it knows.
	status, body := ask(t, endpoint(t, s), `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g`, "text/csv")
	if want := "g\r\n" + otherGraph + "\r\n" + pubURI + "\r\n"; status != http.StatusOK || body != want {
		t.Errorf("named graphs: %d %q, want %q", status, body, want)
	}
	// …also where the rewriting writes one branch per graph (a sub-select inside GRAPH ?g), blank nodes included.
	status, body = ask(t, endpoint(t, s), `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { { SELECT ?s WHERE { ?s ?p _:o } } } } GROUP BY ?g ORDER BY ?g`, "text/csv")
	if want := "g,n\r\n" + otherGraph + ",1\r\n" + pubURI + ",5\r\n"; status != http.StatusOK || body != want {
		t.Errorf("named graphs, constant form: %d %q, want %q", status, body, want)
	}
}

func probe(t *testing.T, s *remote.Store, srv *httptest.Server) {
	// The private graph is in the store, so each refusal below is the rewriting's doing.
	rows, err := s.Select(context.Background(), `SELECT ?o WHERE { GRAPH <`+privateGraph+`> { ?s ?p ?o } }`, "o")
	if err != nil || len(rows) != 2 {
		t.Fatalf("the private graph is not in the store: %v %v", rows, err)
	}
	probes := []string{
		`SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }`,
		`SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } FILTER (?g = <` + privateGraph + `>) }`,
		`SELECT ?o WHERE { VALUES ?g { <` + privateGraph + `> } GRAPH ?g { ?s ?p ?o } }`,
		`SELECT ?o WHERE { GRAPH <` + privateGraph + `> { ?s ?p ?o } }`,
		`SELECT ?o FROM <` + privateGraph + `> WHERE { ?s ?p ?o }`,
		`SELECT ?o FROM NAMED <` + privateGraph + `> WHERE { GRAPH ?g { ?s ?p ?o } }`,
		`SELECT ?o WHERE { ?s ?p ?o FILTER EXISTS { GRAPH ?g { ?s ?p ?o } } }`,
		`SELECT ?o WHERE { { SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } } } }`,
		`SELECT ?o WHERE { OPTIONAL { GRAPH ?g { ?x ?y ?o } } }`,
		`SELECT ?o WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }`,
		`SELECT ?o WHERE { <http://hub.test/g/r/pub/Bridge> <http://hub.test/cost> ?o }`,
		`SELECT ?o WHERE { ?s (<http://hub.test/cost>|!<http://x>)* ?o }`,
		`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }`,
		`DESCRIBE <http://hub.test/g/r/pub/Bridge>`,
		`DESCRIBE <http://hub.test/secret/r/priv/X>`,
		`DESCRIBE ?s WHERE { GRAPH ?g { ?s ?p ?o } }`,
		`ASK { GRAPH <` + privateGraph + `> { ?s ?p "` + secret + `" } }`,
		`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p "` + secret + `" } }`,
		// GRAPH ?g around a sub-select, a VALUES block or nothing is rewritten with constant graphs instead.
		`SELECT ?g ?o WHERE { GRAPH ?g { { SELECT ?o WHERE { ?s ?p ?o } } } }`,
		`SELECT ?g ?o WHERE { GRAPH ?g { VALUES ?g { <` + privateGraph + `> } ?s ?p ?o } }`,
		`SELECT ?g WHERE { GRAPH ?g { } }`,
		`SELECT ?o WHERE { GRAPH ?g { _:b ?p ?o { SELECT ?o WHERE { _:c ?q ?o } } } }`,
		`SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { { SELECT ?s WHERE { ?s ?p "` + secret + `" } } } }`,
	}
	for _, q := range probes {
		for _, accept := range []string{"application/sparql-results+json", "text/turtle"} {
			status, body := ask(t, srv, q, accept)
			if strings.Contains(body, secret) || strings.Contains(body, privateGraph) {
				t.Errorf("%s\nleaked the private graph (%d): %s", q, status, body)
			}
			if strings.HasPrefix(q, "ASK") && strings.Contains(body, "true") {
				t.Errorf("%s answered true", q)
			}
			if strings.Contains(q, "COUNT") && status == http.StatusOK && !strings.Contains(body, `"value":"0"`) && !strings.Contains(body, `"value": "0"`) {
				t.Errorf("%s counted private triples: %s", q, body)
			}
		}
	}
	// What the store itself could do beyond SPARQL is refused before anything is sent.
	for _, q := range []string{
		`SELECT ?o WHERE { SERVICE <` + s.Config().QueryURL + `> { GRAPH ?g { ?s ?p ?o } } }`,
		`SELECT ?o WHERE { SERVICE SILENT <http://127.0.0.1:1/sparql> { ?s ?p ?o } }`,
		`SELECT (<bif:sprintf>("%s", "x") AS ?o) WHERE {}`,
		`SELECT ?o WHERE { ?s ?p ?o FILTER (<sql:exec>("select 1")) }`,
		`SELECT ?o WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } } }`,
	} {
		status, body := ask(t, srv, q, "application/sparql-results+json")
		if status != http.StatusBadRequest || strings.Contains(body, secret) {
			t.Errorf("%s\ngot %d %s, want 400", q, status, body)
		}
	}
}

func TestLimitsHoldOnTheStore(t *testing.T) {
	s := store(t)
	h := &protocol.Handler{
		WriteError: apierr.Write,
		Codecs:     codec.Default(),
		Limits:     protocol.Limits{MaxResults: 2},
		Resolve: func(ctx context.Context, r *http.Request, d protocol.DatasetRequest) (protocol.Backend, func(), error) {
			return &remote.Query{Store: s, Dataset: remote.Dataset{Default: []string{pubGraph}}}, func() {}, nil
		},
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	status, body := ask(t, srv, `SELECT * WHERE { ?s ?p ?o }`, "application/sparql-results+json")
	if status != http.StatusOK || strings.Count(body, `"p":{`) != 2 || !strings.Contains(body, "ldhub:truncated") {
		t.Errorf("MaxResults 2: %d %s", status, body)
	}
}

func TestWrongCredentialsAreRefused(t *testing.T) {
	v := virtuoso.Get(t)
	s, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password + "x"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(context.Background(), `INSERT DATA { GRAPH <`+pubGraph+`> { <http://x> <http://x> "planted" } }`)
	if err == nil {
		t.Fatal("an update with a wrong password was accepted")
	}
	rows, err := s.Select(context.Background(), `SELECT ?o WHERE { GRAPH <`+pubGraph+`> { ?s ?p "planted" } }`, "o")
	if err != nil || len(rows) != 0 {
		t.Fatalf("the refused update changed the store: %v %v", rows, err)
	}
}

// TestBulkLoad loads a file with Virtuoso's bulk loader (the benchmark's way of loading an anchor) and checks every
// triple arrived, and that a file the loader rejects is reported, not taken for an empty load.
func TestBulkLoad(t *testing.T) {
	s := store(t)
	v := virtuoso.Get(t)
	ctx := context.Background()
	good := filepath.Join(v.Dir, "bulk-good.nt")
	if err := os.WriteFile(good, []byte(`<http://hub.test/bulk/a> <http://hub.test/p> "ä"@de .
<http://hub.test/bulk/a> <http://hub.test/p> "2.50"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://hub.test/bulk/b> <http://hub.test/p> <http://hub.test/bulk/a> .
`), 0o600); err != nil {
		t.Fatal(err)
	}
	const g = "http://hub.test/bulk/graph"
	if err := v.BulkLoad(ctx, good, g); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Select(ctx, "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <"+g+"> { ?s ?p ?o } }", "n")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["n"].Value != "3" {
		t.Fatalf("bulk-loaded graph holds %v, want 3 triples", rows)
	}
	bad := filepath.Join(v.Dir, "bulk-bad.nt")
	if err := os.WriteFile(bad, []byte("<http://hub.test/bulk/c> <http://hub.test/p> \"unterminated .\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := v.BulkLoad(ctx, bad, "http://hub.test/bulk/bad"); err == nil {
		t.Fatal("a malformed file loaded without an error")
	}
}
