package objstore_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/codec"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
	"github.com/ldhub/ldhub/site/html"
	"github.com/ldhub/ldhub/site/objstore"
	"github.com/ldhub/ldhub/site/objstore/s3test"
)

// acceptCorpus is the Accept values both negotiators are run on: what real clients send, and the edges of
// RFC 9110's grammar (weights, wildcards, parameters, aliases, malformed ranges).
var acceptCorpus = []string{
	"", " ", "*/*", "text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json", "text/html",
	"application/trig", "application/n-quads", "application/x-turtle", "text/n3", "application/xhtml+xml", "text/plain",
	"application/json", "image/png", "TEXT/Turtle", "text/*", "application/*", "*/turtle", ",,,", ";q=1", "text/turtle;",
	"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
	"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
	"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
	"application/rdf+xml;q=0.5, text/html;q=0.5", "text/*;q=0.5, application/*", "text/turtle;q=0, */*",
	"application/ld+json;q=0.9, text/turtle;q=0.8", " text/turtle ; q=0.3 , application/n-triples;q=0.31",
	"text/turtle;q=1.0", "text/turtle;q=1.5", "text/turtle;q=0.", "text/turtle;q=.5, application/n-triples;q=0.4",
	"text/turtle;q=0.001, application/n-triples;q=0.0001", "text/turtle;q=0.5;level=1, application/rdf+xml;q=0.4",
	`application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"`, `application/ld+json;profile=""`,
	`text/turtle;foo="a,b", application/rdf+xml`, `text/turtle;charset="utf-8"`, `text/turtle;charset=UTF-8;q=0.9, */*;q=0.1`,
	"*/*;q=0.1, application/trig", "application/trig;q=0.9, application/n-quads", "*/*;q=0", "text/html;q=0, */*;q=0.5",
	"application/x-turtle;q=0.9, text/turtle;q=0.8", "text/turtle, application/x-turtle;q=0", "application/*;q=0.2, text/html;q=0.1",
	"text/turtle;q=0.9;ext=x, application/ld+json;q=0.9", "\ttext/turtle\t", "text/turtle;Q=0.2, application/n-triples;q=0.3",
	`text/turtle;x="\"quoted\"";q=0.7, application/rdf+xml;q=0.6`, "application/rdf+xml,text/turtle;q=0.99,*/*;q=0.01",
	"text/turtle;q=1.5, */*", "text/html;q=2, */*;q=0.5", "text/turtle;q=0.2, application/n-triples;q=0.3, text/turtle;q=0.9",
	"application/*;q=0.1, application/*;q=0.9, text/html;q=0.5",
}

// offerLists are the representation lists a rendered folder can have (graph, graph without RDF/XML, dataset), and
// the same lists with each syntax's aliases after them, as the site handler negotiates.
func offerLists() [][]string {
	base := [][]string{
		{"text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json", "text/html"},
		{"text/turtle", "application/n-triples", "application/ld+json", "text/html"},
		{"application/trig", "application/n-quads", "application/ld+json", "text/html"},
		{"text/html"},
	}
	out := base
	for _, b := range base {
		with := append([]string(nil), b...)
		for _, o := range b {
			if s, ok := codec.Default().ByMediaType(o); ok {
				for _, mt := range s.Asked() {
					if mt != o {
						with = append(with, mt)
					}
				}
			}
		}
		out = append(out, with)
	}
	return out
}

func nodeBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is missing: it runs the generated Cloudflare Worker")
		}
		t.Skip("node is missing: it runs the generated Cloudflare Worker")
	}
	return p
}

// runWorker writes the generated worker and a driver script into a folder and runs the driver with node, giving
// it input as JSON and decoding its JSON output into out.
func runWorker(t *testing.T, driver string, input, out any) {
	t.Helper()
	node := nodeBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "worker.mjs"), []byte(objstore.CloudflareWorker("en")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(dir, "driver.mjs"))
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("node output: %v\n%s", err, b)
	}
}

const readStdin = `const chunks = []; for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
`

// TestWorkerNegotiatesAsCodec runs the worker's negotiation and content/codec.Negotiate on every Accept value of
// the corpus against every offer list: the edge and the hub must pick the same representation.
func TestWorkerNegotiatesAsCodec(t *testing.T) {
	type tc struct {
		Accept string   `json:"accept"`
		Offers []string `json:"offers"`
	}
	var cases []tc
	for _, offers := range offerLists() {
		for _, a := range acceptCorpus {
			cases = append(cases, tc{a, offers})
		}
	}
	var got []int
	runWorker(t, `import { negotiate } from "./worker.mjs";
`+readStdin+`process.stdout.write(JSON.stringify(input.map((c) => negotiate(c.accept, c.offers))));
`, cases, &got)
	if len(got) != len(cases) {
		t.Fatalf("node answered %d cases of %d", len(got), len(cases))
	}
	for i, c := range cases {
		want := -1
		if mt, ok := codec.Negotiate(c.Accept, c.Offers); ok {
			want = indexOf(c.Offers, mt)
		}
		if got[i] != want {
			t.Errorf("Accept %q over %v: worker picks %d, codec %d", c.Accept, c.Offers, got[i], want)
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// TestWorkerServesAsHandler publishes a rendered hub to the real S3 server (s3test), runs the generated worker in
// node against the bucket, and asks it and ldhub's own direct-URL handler the same requests: status, Content-Type,
// Content-Location, Vary and body must agree.
func TestWorkerServesAsHandler(t *testing.T) {
	const bucket, prefix = "edge", "site/"
	nodeBinary(t)
	s3 := s3test.Start(t, bucket, false)
	h := newHub(t)
	core := h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.Update(t, core.ID, ".ttl", pipelinetest.Vocab+"<Extra> a <Other> .\n")
	core = h.Update(t, core.ID, ".ttl", pipelinetest.Vocab+"<Third> a <Other> .\n")
	// A retracted version: the hub answers 410 Gone for its URLs, and so must the edge.
	mid := core.Versions[1]
	if _, err := h.Store.RetractVersion(context.Background(), h.Admin, core.ID, mid.ID); err != nil {
		t.Fatal(err)
	}
	h.Publish(t, h.Open.ID, "data", ".trig", "<g> { <s> <p> <o> . }\n<a> <b> <c> .\n")
	h.build(t)
	handler := publishAndServe(t, h, s3, bucket, prefix)

	var version string
	plan, err := objstore.Plan(h.out, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range plan {
		if strings.HasPrefix(o.Key, "org/open/core/versions/") && strings.HasSuffix(o.Key, ".nt") {
			version = "/" + strings.TrimSuffix(o.Key, ".nt")
		}
	}
	paths := []string{"/", "/org", "/org/open", "/org/open/core", "/org/open/data", version,
		"/org/open/core.ttl", "/org/open/core.html", "/org/open/core.jsonld", "/org/open/data.trig", "/org/open/data.nq",
		version + ".nt", version + ".html", "/org/open/core/void.ttl", "/org/open/core.trig",
		// Term pages: from the bucket by the edge, from their files by the handler. (A term the bucket has not got
		// goes to LDHUB_URL, which this test does not set.)
		"/org/open/core/Thing", "/org/open/core/Thing.ttl", "/org/open/core/Other.html", "/org/open/core/size.jsonld"}
	// A term with a query is the hub's (the next page of its references, another language): without LDHUB_URL
	// the edge answers 404, never the bucket's first page in the hub's language.
	for _, p := range []string{"/org/open/core/Thing?page=2", "/org/open/core/Thing.html?lang=fr"} {
		out := edgeOnly(t, s3, bucket, prefix, p)
		if out != http.StatusNotFound {
			t.Errorf("edge GET %s: %d, want 404 (handed to LDHUB_URL, unset)", p, out)
		}
	}
	// A term's page in the bucket is in the hub's language: a reader asking for another gets it from LDHUB_URL, as
	// nginx and Apache hand it to ldhub; RDF and readers of the hub's language get the bucket's.
	for _, c := range []struct {
		path, accept, lang string
		hub                bool
	}{
		{"/org/open/core/Thing", "text/html", "fr", true},
		{"/org/open/core/Thing.html", "", "nl, en;q=0.5", true},
		{"/org/open/core/Thing.html", "", "en, fr;q=0.5", true},
		{"/org/open/core/Thing", "text/html", "", false},
		{"/org/open/core/Thing", "text/html", "en", false},
		{"/org/open/core/Thing.html", "", "EN;q=0.8 , en", false},
		{"/org/open/core/Thing.ttl", "", "fr", false},
		{"/org/open/core/Thing", "text/turtle", "fr", false},
	} {
		if got := edgeWithHub(t, s3, bucket, prefix, c.path, c.accept, c.lang); got != c.hub {
			t.Errorf("edge GET %s (Accept %q, Accept-Language %q): from the hub %v, want %v", c.path, c.accept, c.lang, got, c.hub)
		}
	}
	retracted := "/org/open/core/versions/" + mid.Label
	paths = append(paths, retracted, retracted+".ttl", retracted+".html", retracted+"/void.ttl", retracted+"/Thing",
		"/org/open/core/versions/no-such-label")
	accepts := []string{"", "*/*", "text/turtle", "application/x-turtle", "text/html",
		"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "application/ld+json;q=0.9, text/turtle;q=0.8",
		"application/n-quads", "image/png", "text/*;q=0.5, application/*", "application/rdf+xml;q=0.5, text/html;q=0.5"}
	var reqs []edgeRequest
	for _, p := range paths {
		for _, a := range accepts {
			reqs = append(reqs, edgeRequest{Path: p, Accept: a})
		}
	}
	want, got := edgeAnswers(t, handler, s3, bucket, prefix, reqs)
	ok, gone := 0, 0
	for i, r := range reqs {
		if got[i] != want[i] {
			t.Errorf("GET %s Accept %q:\n worker  %+v\n handler %+v", r.Path, r.Accept, got[i], want[i])
			continue
		}
		switch want[i].Status {
		case http.StatusOK:
			ok++
		case http.StatusGone:
			gone++
		}
	}
	if gone != 5*len(accepts) {
		t.Errorf("%d requests answered 410 by both, want %d (the retracted version's 5 URLs)", gone, 5*len(accepts))
	}
	if ok < len(reqs)/2 {
		t.Errorf("only %d of %d requests answered 200: the comparison proves little", ok, len(reqs))
	}
}

// publishAndServe publishes h's rendered tree to the bucket and returns ldhub's handler over the same tree.
func publishAndServe(t *testing.T, h *hub, s3 *s3test.Server, bucket, prefix string) *site.Handler {
	t.Helper()
	pub, err := objstore.New(objstore.Options{Target: objstore.Target{Endpoint: s3.Endpoint, Bucket: bucket, Prefix: prefix},
		AccessKey: s3.AdminKey, SecretKey: s3.AdminSecret})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Sync(context.Background(), h.out); err != nil {
		t.Fatal(err)
	}
	handler, err := site.NewHandler(site.Options{Dir: h.out, Pages: pipeline.PagesDir(h.out), Theme: html.NewResources(html.ResourceOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { handler.Close() })
	return handler
}

// edgeOnly is the worker's status for a GET of path without LDHUB_URL.
func edgeOnly(t *testing.T, s3 *s3test.Server, bucket, prefix, path string) int {
	t.Helper()
	var status int
	runWorker(t, `import worker from "./worker.mjs";
`+readStdin+`const res = await worker.fetch(new Request("https://edge.example" + input.path), { ORIGIN: input.origin });
process.stdout.write(JSON.stringify(res.status));
`, map[string]any{"origin": "http://" + s3.Endpoint + "/" + bucket + "/" + strings.TrimSuffix(prefix, "/"), "path": path}, &status)
	return status
}

// edgeWithHub says whether the worker, with LDHUB_URL set, answers a GET of path from the hub rather than the bucket.
func edgeWithHub(t *testing.T, s3 *s3test.Server, bucket, prefix, path, accept, lang string) bool {
	t.Helper()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "from the hub")
	}))
	defer hub.Close()
	var body string
	runWorker(t, `import worker from "./worker.mjs";
`+readStdin+`const headers = {};
if (input.accept !== "") headers["Accept"] = input.accept;
if (input.lang !== "") headers["Accept-Language"] = input.lang;
const res = await worker.fetch(new Request("https://edge.example" + input.path, { headers }), { ORIGIN: input.origin, LDHUB_URL: input.hub });
if (res.status !== 200) throw new Error("status " + res.status);
process.stdout.write(JSON.stringify(await res.text()));
`, map[string]any{"origin": "http://" + s3.Endpoint + "/" + bucket + "/" + strings.TrimSuffix(prefix, "/"), "path": path,
		"accept": accept, "lang": lang, "hub": hub.URL}, &body)
	return body == "from the hub"
}

type edgeRequest struct {
	Path           string `json:"path"`
	Accept         string `json:"accept"`
	AcceptLanguage string `json:"acceptLanguage"`
}

type edgeAnswer struct {
	Status          int    `json:"status"`
	ContentType     string `json:"contentType"`
	ContentLocation string `json:"contentLocation"`
	Vary            string `json:"vary"` // the fields named, sorted, without Accept-Encoding
	MD5             string `json:"md5"`
}

// edgeAnswers asks ldhub's handler and the generated worker (in node, against the bucket the tree was published
// to) the same requests, and returns their answers: status, and for 200 Content-Type, Content-Location, Vary and
// the body's MD5 (for 410 the Content-Type).
func edgeAnswers(t *testing.T, handler http.Handler, s3 *s3test.Server, bucket, prefix string, reqs []edgeRequest) (want, got []edgeAnswer) {
	t.Helper()
	for _, q := range reqs {
		r := httptest.NewRequest(http.MethodGet, q.Path, nil)
		if q.Accept != "" {
			r.Header.Set("Accept", q.Accept)
		}
		if q.AcceptLanguage != "" {
			r.Header.Set("Accept-Language", q.AcceptLanguage)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		ans := edgeAnswer{Status: w.Code}
		if w.Code == http.StatusGone {
			ans.ContentType = w.Header().Get("Content-Type")
		}
		if w.Code == http.StatusOK {
			sum := md5.Sum(w.Body.Bytes())
			ans = edgeAnswer{Status: w.Code, ContentType: w.Header().Get("Content-Type"), ContentLocation: w.Header().Get("Content-Location"),
				Vary: varyFields(w.Header().Values("Vary")), MD5: hex.EncodeToString(sum[:])}
		}
		want = append(want, ans)
	}
	runWorker(t, `import worker from "./worker.mjs";
import { createHash } from "node:crypto";
`+readStdin+`const out = [];
for (const r of input.requests) {
  const headers = {};
  if (r.accept !== "") headers.Accept = r.accept;
  if (r.acceptLanguage !== "") headers["Accept-Language"] = r.acceptLanguage;
  const res = await worker.fetch(new Request("https://edge.example" + r.path, { headers }), { ORIGIN: input.origin });
  const body = Buffer.from(await res.arrayBuffer());
  const a = { status: res.status, contentType: "", contentLocation: "", vary: "", md5: "" };
  if (res.status === 410) a.contentType = res.headers.get("Content-Type") || "";
  if (res.status === 200) {
    a.contentType = res.headers.get("Content-Type") || "";
    a.contentLocation = res.headers.get("Content-Location") || "";
    a.vary = (res.headers.get("Vary") || "").split(",").map((v) => v.trim()).filter((v) => v !== "" && v.toLowerCase() !== "accept-encoding").sort().join(", ");
    a.md5 = createHash("md5").update(body).digest("hex");
  }
  out.push(a);
}
process.stdout.write(JSON.stringify(out));
`, map[string]any{"origin": "http://" + s3.Endpoint + "/" + bucket + "/" + strings.TrimSuffix(prefix, "/"), "requests": reqs}, &got)
	if len(got) != len(want) {
		t.Fatalf("node answered %d requests of %d", len(got), len(want))
	}
	return want, got
}

// varyFields is the fields a Vary header names, sorted, without Accept-Encoding (the worker leaves compression to
// the CDN).
func varyFields(vary []string) string {
	var out []string
	for _, v := range vary {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" && !strings.EqualFold(f, "Accept-Encoding") {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// TestWorkerServesPagesAsHandler publishes a large bilingual vocabulary (its page leaves terms out) and asks the
// worker and the handler for its pages in each language, the pages listing every term (in each language) and the
// labels indexes, by query, Accept and Accept-Language: the answers must agree.
func TestWorkerServesPagesAsHandler(t *testing.T) {
	const bucket, prefix = "pages", "site/"
	nodeBinary(t)
	s3 := s3test.Start(t, bucket, false)
	h := &hub{Hub: pipelinetest.New(t), out: t.TempDir()}
	p, err := pipeline.New(pipeline.Options{Store: h.Store, Out: h.out, BaseURL: "https://data.example.org",
		HTML: &pipeline.HTML{TermsPerPage: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	h.pipe = p
	var nt strings.Builder
	for i := range 3100 {
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2004/02/skos/core#Concept> .\n", i)
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Concept %05d\"@en .\n", i, i)
		fmt.Fprintf(&nt, "<http://example.org/thes/c%d> <http://www.w3.org/2004/02/skos/core#prefLabel> \"Notion %05d\"@fr .\n", i, 3099-i)
	}
	big := h.Publish(t, h.Open.ID, "big", ".nt", nt.String())
	h.Publish(t, h.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	h.build(t)
	handler := publishAndServe(t, h, s3, bucket, prefix)
	version := "/org/open/big/versions/" + big.Versions[0].Label
	var reqs []edgeRequest
	for _, self := range []string{"/org/open/big", version} {
		for _, q := range []string{"", "?lang=fr", "?lang=en", "?lang=de", "?lang=fr-CA", "?lang=1", "?lang=fr&lang=en",
			"?terms=concept&page=1", "?page=4&terms=concept", "?terms=concept&page=5", "?terms=concept&page=0",
			"?terms=concept&page=x", "?terms=concept", "?terms=nothing&page=1",
			"?lang=fr&terms=concept&page=2", "?terms=concept&page=2&lang=fr", "?lang=en&terms=concept&page=1",
			"?lang=de&terms=concept&page=3", "?lang=1&terms=concept&page=1",
			"?terms=index", "?terms=index&lang=fr", "?lang=de&terms=index", "?terms=index&lang=1", "?terms=index&page=1"} {
			for _, ext := range []string{"", ".html", ".ttl"} {
				for _, a := range []struct{ accept, al string }{{"", ""}, {"text/html", ""}, {"text/html", "fr-CH, fr;q=0.9, en;q=0.8"},
					{"text/html", "de;q=0.9, en;q=0.5"}, {"image/png", ""}, {"text/turtle", "fr"}} {
					reqs = append(reqs, edgeRequest{Path: self + ext + q, Accept: a.accept, AcceptLanguage: a.al})
				}
			}
		}
	}
	for _, a := range []string{"", "fr", "text/html"} {
		reqs = append(reqs, edgeRequest{Path: "/org/open/core?terms=index", Accept: a}, edgeRequest{Path: "/org/open/core?lang=fr", Accept: "text/html", AcceptLanguage: a})
	}
	want, got := edgeAnswers(t, handler, s3, bucket, prefix, reqs)
	statuses := map[int]int{}
	for i, r := range reqs {
		if got[i] != want[i] {
			t.Errorf("GET %s Accept %q Accept-Language %q:\n worker  %+v\n handler %+v", r.Path, r.Accept, r.AcceptLanguage, got[i], want[i])
			continue
		}
		statuses[want[i].Status]++
	}
	t.Logf("%d requests, both answered %v", len(reqs), statuses)
	if statuses[http.StatusOK] < len(reqs)/2 || statuses[http.StatusBadRequest] == 0 || statuses[http.StatusNotFound] == 0 {
		t.Errorf("statuses %v: the comparison proves little", statuses)
	}
}
