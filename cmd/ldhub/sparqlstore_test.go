package main

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/pipeline/storeload"
	"github.com/ldhub/ldhub/sparqlsvc/remote"
	"github.com/ldhub/ldhub/sparqlsvc/remote/virtuosotest"
)

var virtuoso virtuosotest.Shared

// storeHub is an `ldhub serve` with an external Virtuoso as its SPARQL store.
type storeHub struct {
	t          *testing.T
	bin, data  string
	addr, base string
	env        []string
	store      *remote.Store
	proc       *hubProc
}

const storeAdmin, storeSecret = "root", "store-test-secret-1"

func newStoreHub(t *testing.T, extra ...string) *storeHub {
	v := virtuoso.Get(t)
	st, err := remote.New(remote.Config{QueryURL: v.QueryURL, User: v.User, Password: v.Password})
	if err != nil {
		t.Fatal(err)
	}
	h := &storeHub{t: t, bin: ldhubBinary(t), data: t.TempDir(), addr: freeAddr(t), store: st}
	h.base = "http://" + h.addr
	// The store's password travels in the environment, never on the command line.
	h.env = append([]string{"LDHUB_ADMIN_ID=" + storeAdmin, "LDHUB_ADMIN_SECRET=" + storeSecret,
		"LDHUB_SPARQL_STORE=" + v.QueryURL, "LDHUB_SPARQL_STORE_USER=" + v.User, "LDHUB_SPARQL_STORE_PASSWORD=" + v.Password}, extra...)
	h.start()
	return h
}

func (h *storeHub) start() { h.proc = startHub(h.t, h.bin, h.data, h.addr, h.env...) }

// graphs returns the store graphs under this hub's base URL with their triple counts: what a query could reach.
func (h *storeHub) graphs() map[string]int {
	h.t.Helper()
	rows, err := h.store.Select(context.Background(), `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o }
		FILTER (STRSTARTS(STR(?g), "`+h.base+`/")) } GROUP BY ?g`, "g", "n")
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows {
		n, _ := strconv.Atoi(r["n"].Value)
		out[r["g"].Value] = n
	}
	return out
}

// marks returns the loader's bookkeeping for this hub: graph → state.
func (h *storeHub) marks() map[string][]string {
	h.t.Helper()
	rows, err := h.store.Select(context.Background(), `SELECT ?g ?state WHERE { GRAPH <`+storeload.LoadsGraph+`> { ?g ?state ?v }
		FILTER (STRSTARTS(STR(?g), "`+h.base+`/")) }`, "g", "state")
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, r := range rows {
		out[r["g"].Value] = append(out[r["g"].Value], r["state"].Value)
	}
	return out
}

// converge waits until the store holds exactly want (graph → triples), every graph marked loaded once.
func (h *storeHub) converge(want map[string]int) {
	h.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		got, marks := h.graphs(), h.marks()
		ok := fmt.Sprint(got) == fmt.Sprint(want) && len(marks) == len(want)
		for g := range want {
			if m := marks[g]; len(m) != 1 || m[0] != "urn:ldhub:loaded" {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the store did not converge within 90 s\ngot   %v\nmarks %v\nwant  %v\n%s", got, marks, want, h.proc.logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (h *storeHub) query(c *client, path, query string, params ...string) reply {
	h.t.Helper()
	v := url.Values{"query": {query}}
	for i := 0; i+1 < len(params); i += 2 {
		v.Add(params[i], params[i+1])
	}
	r, err := c.do("POST", path, "application/x-www-form-urlencoded", []byte(v.Encode()), "Accept", "text/csv")
	if err != nil {
		h.t.Fatalf("query %s: %v", path, err)
	}
	return r
}

// TestSPARQLStoreServesAndForgets runs `ldhub serve --sparql-store` against a real Virtuoso: published versions
// are loaded as graphs named after their version URIs, queries at direct URLs and over the API are answered by
// the store (a triple planted in the store behind ldhub's back shows), a private publication's graph is in the
// store but no query of a reader who may not see it reaches it, and deleting a publication drops its graphs.
func TestSPARQLStoreServesAndForgets(t *testing.T) {
	h := newStoreHub(t)
	defer h.proc.stop(t)
	c := newClient(h.addr, storeAdmin, storeSecret)
	defer c.close()
	var pg, sg, pr, sr idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"open","type":"PUBLIC"}`), &pg)
	c.must(t, "POST", "/api/v3/repositories", "application/json",
		[]byte(`{"name":"data","pathSegment":"data","visible":true,"parentId":"`+pg.ID+`"}`), &pr)
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"closed","type":"PRIVATE"}`), &sg)
	c.must(t, "POST", "/api/v3/repositories", "application/json",
		[]byte(`{"name":"vault","pathSegment":"vault","visible":false,"parentId":"`+sg.ID+`"}`), &sr)
	publish := func(repo, name, nt string) pubListItem {
		body, ctype := multipartBody("metadata", "m.json", `{"name":"`+name+`"}`, "content", name+".nt", nt)
		var p pubListItem
		c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, &p)
		return p
	}
	pub := publish(pr.ID, "roads", `<http://example.org/A1> <http://www.w3.org/2000/01/rdf-schema#label> "A1" .
<http://example.org/A2> <http://www.w3.org/2000/01/rdf-schema#label> "A2" .
`)
	const secret = "VAULT-SECRET-42"
	priv := publish(sr.ID, "keys", `<http://example.org/A1> <http://example.org/key> "`+secret+`" .
`)
	pubGraph := h.base + "/open/data/roads/versions/" + pub.Versions[0].Version
	privGraph := h.base + "/closed/vault/keys/versions/" + priv.Versions[0].Version
	h.converge(map[string]int{pubGraph: 2, privGraph: 1})

	// Plant a triple in the store's graph behind ldhub's back: answers that show it come from the store.
	if err := h.store.Update(context.Background(), `INSERT DATA { GRAPH <`+pubGraph+`> { <http://example.org/A3> <http://www.w3.org/2000/01/rdf-schema#label> "planted" } }`); err != nil {
		t.Fatal(err)
	}
	anon := newClient(h.addr, "", "")
	defer anon.close()
	labels := `SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY ?l`
	for _, q := range []struct {
		c    *client
		path string
	}{{anon, "/open/data/roads/sparql"}, {c, "/api/v3/publications/" + pub.ID + "/sparql"}} {
		path := q.path
		r := h.query(q.c, path, labels)
		if r.status != 200 || string(r.body) != "l\r\nA1\r\nA2\r\nplanted\r\n" {
			t.Errorf("%s: %s, want the store's answer with the planted label", path, r)
		}
	}

	// The reader tries to reach the private version's graph by every name it could guess.
	probes := []struct {
		query  string
		params []string
	}{
		{`SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }`, nil},
		{`SELECT ?o WHERE { GRAPH <` + privGraph + `> { ?s ?p ?o } }`, nil},
		{`SELECT ?o FROM <` + privGraph + `> WHERE { ?s ?p ?o }`, nil},
		{`SELECT ?o FROM NAMED <` + privGraph + `> WHERE { GRAPH ?g { ?s ?p ?o } }`, nil},
		{`SELECT ?o WHERE { ?s ?p ?o }`, []string{"default-graph-uri", privGraph}},
		{`SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }`, []string{"named-graph-uri", privGraph}},
		{`SELECT ?o WHERE { ?s ?p ?o }`, []string{"default-graph-uri", priv.ID}},
		{`SELECT ?o WHERE { SERVICE <` + h.store.Config().QueryURL + `> { ?s ?p ?o } }`, nil},
		{`DESCRIBE <http://example.org/A1>`, nil},
	}
	for _, p := range probes {
		for _, path := range []string{"/open/data/roads/sparql", "/open/data/roads/versions/" + pub.Versions[0].Version + "/sparql"} {
			r := h.query(anon, path, p.query, p.params...)
			if strings.Contains(string(r.body), secret) {
				t.Errorf("%s %s %v leaked the private graph: %s", path, p.query, p.params, r)
			}
		}
	}
	// Its owner reaches it, through the store too.
	if r := h.query(c, "/api/v3/publications/"+priv.ID+"/sparql", `SELECT ?o WHERE { ?s <http://example.org/key> ?o }`); !strings.Contains(string(r.body), secret) {
		t.Errorf("the owner's query: %s", r)
	}

	// Deleting the publications drops their graphs and marks.
	c.must(t, "DELETE", "/api/v3/publications/"+priv.ID, "", nil, nil)
	h.converge(map[string]int{pubGraph: 3})
	if t.Failed() {
		t.Logf("server log:\n%s", h.proc.logs.String())
	}
}

// TestSPARQLStoreConvergesAfterKill kills `ldhub serve` with SIGKILL while it loads a version into the store,
// empties the store of everything else, restarts, and checks that every published version is in the store exactly
// once (one graph, its triple count, one "loaded" mark) and nothing else.
func TestSPARQLStoreConvergesAfterKill(t *testing.T) {
	h := newStoreHub(t)
	c := newClient(h.addr, storeAdmin, storeSecret)
	var g, r idOnly
	c.must(t, "POST", "/api/v3/groups", "application/json", []byte(`{"name":"big","type":"PUBLIC"}`), &g)
	c.must(t, "POST", "/api/v3/repositories", "application/json",
		[]byte(`{"name":"sets","pathSegment":"sets","visible":true,"parentId":"`+g.ID+`"}`), &r)
	want := map[string]int{}
	publish := func(name string, n int) {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "<http://example.org/%s/s%d> <http://example.org/p%d> \"%s value %d\" .\n", name, i, i%7, name, i)
		}
		body, ctype := multipartBody("metadata", "m.json", `{"name":"`+name+`"}`, "content", name+".nt", b.String())
		var p pubListItem
		c.must(t, "POST", "/api/v3/repositories/"+r.ID+"/publications", ctype, body, &p)
		want[h.base+"/big/sets/"+name+"/versions/"+p.Versions[0].Version] = n
	}
	publish("small", 10)
	h.converge(map[string]int{h.base + "/big/sets/small/versions/" + firstKey(want, "small"): 10})
	publish("large", 30_000)
	// Kill as soon as the large version is marked as loading: its graph is being replaced.
	deadline := time.Now().Add(90 * time.Second)
	for {
		loading := false
		for _, states := range h.marks() {
			for _, s := range states {
				loading = loading || s == "urn:ldhub:loading"
			}
		}
		if loading {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the large version was never seen loading:\n%s", h.proc.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.proc.kill()
	c.close()
	h.start()
	defer h.proc.stop(t)
	h.converge(want)

	// Emptied behind ldhub's back (graphs and bookkeeping), the store is filled again.
	for g := range want {
		if err := h.store.Update(context.Background(), `DROP SILENT GRAPH <`+g+`> ; DELETE WHERE { GRAPH <`+storeload.LoadsGraph+`> { <`+g+`> ?s ?v } }`); err != nil {
			t.Fatal(err)
		}
	}
	h.converge(want)
}

func firstKey(m map[string]int, name string) string {
	for k := range m {
		if i := strings.Index(k, "/"+name+"/versions/"); i >= 0 {
			return k[i+len("/"+name+"/versions/"):]
		}
	}
	return ""
}
