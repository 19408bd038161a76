package main

import (
	"strings"
	"testing"
	"time"
)

// TestServeBinaryEndToEnd runs the built binary, not the code under `go test`: libraries may behave differently
// in a test binary (Hugo, for one, skips its build lock file there, which hid a failure of every resource page in
// the real `ldhub serve`). An upload through the API must become live at its direct URL in every form a reader
// meets: Turtle by default, HTML, a resource page as HTML and as Turtle, the version's own URL.
func TestServeBinaryEndToEnd(t *testing.T) {
	const id, secret = "root", "end-to-end-secret-1"
	data, addr := t.TempDir(), freeAddr(t)
	p := startHub(t, ldhubBinary(t), data, addr, "LDHUB_ADMIN_ID="+id, "LDHUB_ADMIN_SECRET="+secret)
	defer p.stop(t)
	c := newClient(addr, id, secret)
	defer c.close()
	repo := vocabRepository(t, c)
	ttl := "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n" +
		"<Thing> a rdfs:Class ; rdfs:label \"A thing of the end-to-end test\"@en .\n<Other> rdfs:subClassOf <Thing> .\n"
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl", ttl)
	var pub pubListItem
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, &pub)

	anon := newClient(addr, "", "")
	defer anon.close()
	get := func(path, accept string) reply {
		t.Helper()
		res, err := anon.do("GET", path, "", nil, "Accept", accept)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return res
	}
	deadline := time.Now().Add(60 * time.Second)
	for get("/org/vocab/core", "").status != 200 {
		if time.Now().After(deadline) {
			t.Fatalf("/org/vocab/core not live within 60 s:\n%s", p.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	thing := "http://" + addr + "/org/vocab/core/Thing"
	cases := []struct{ path, accept, ctype, want string }{
		{"/org/vocab/core", "", "text/turtle", "<" + thing + ">"},
		{"/org/vocab/core", "text/html", "text/html", "<title>core "},
		{"/org/vocab/core/Thing", "text/html", "text/html", "A thing of the end-to-end test"},
		{"/org/vocab/core/Thing", "text/turtle", "text/turtle", "A thing of the end-to-end test"},
		{"/org/vocab/core/versions/" + pub.Versions[0].Version + ".nt", "", "application/n-triples", "<" + thing + ">"},
	}
	for _, tc := range cases {
		// Twice: the second answer of a resource page comes from its cache, of a dump from the fast path.
		for range 2 {
			res := get(tc.path, tc.accept)
			if res.status != 200 || !strings.HasPrefix(res.header.Get("Content-Type"), tc.ctype) || !strings.Contains(string(res.body), tc.want) {
				t.Errorf("GET %s (Accept %q): %d %s, want %s with %q\n%.400s", tc.path, tc.accept, res.status,
					res.header.Get("Content-Type"), tc.ctype, tc.want, res.body)
			}
		}
	}
	if t.Failed() {
		t.Logf("server log:\n%s", p.logs.String())
	}
}
