package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/site/webconf"
)

// TestJSONAcceptGetsJSONLD: a reader that asks a publication's direct URL for `application/json` (curl -H, as
// a script that wants JSON writes it) gets its JSON-LD, from `ldhub serve` and from Debian's nginx serving the
// rendered tree with the generated configuration alike, and nginx answers it from the files. Both answered 406.
func TestJSONAcceptGetsJSONLD(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	data := t.TempDir()
	s := startServe(t, map[string]string{"LDHUB_DATA": data, "LDHUB_ADMIN_ID": "root", "LDHUB_ADMIN_SECRET": "json-accept-secret"})
	defer s.stop()
	c := newClient(s.addr, "root", "json-accept-secret")
	defer c.close()
	repo := vocabRepository(t, c)
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"core"}`, "content", "core.ttl",
		"<Bridge> <http://www.w3.org/2000/01/rdf-schema#label> \"Bridge\"@en .\n")
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, nil)

	addr := freeAddr(t)
	conf, err := webconf.NginxConfig(webconf.ServerConfig{Listen: addr, Dir: filepath.Join(data, "site"), Upstream: s.addr})
	if err != nil {
		t.Fatal(err)
	}
	defer startNginx(t, conf, addr)()

	type answer struct{ head, body string }
	var answers []answer
	for _, base := range []string{"http://" + s.addr, "http://" + addr} {
		for _, path := range []string{"/org/vocab/core", "/org/vocab/core/Bridge"} {
			out := filepath.Join(t.TempDir(), "body")
			head, err := exec.Command("curl", "-sS", "-D", "-", "-o", out, "-H", "Accept: application/json", base+path).CombinedOutput()
			if err != nil {
				t.Fatalf("curl %s%s: %v\n%s", base, path, err, head)
			}
			b, _ := os.ReadFile(out)
			h := strings.ToLower(string(head))
			var doc any
			if !strings.HasPrefix(h, "http/1.1 200") || !strings.Contains(h, "\ncontent-type: application/ld+json") ||
				json.Unmarshal(b, &doc) != nil || !strings.Contains(string(b), "Bridge") {
				t.Errorf("curl -H 'Accept: application/json' %s%s: want 200 and the JSON-LD\n%s%.300s", base, path, head, b)
			}
			answers = append(answers, answer{h, string(b)})
		}
	}
	if !strings.Contains(answers[2].head, "\nx-ldhub-static:") {
		t.Errorf("nginx did not answer application/json from the files:\n%s", answers[2].head)
	}
	for i := range 2 {
		if answers[i].body != answers[i+2].body {
			t.Errorf("ldhub and nginx answer differently:\n%.300s\n%.300s", answers[i].body, answers[i+2].body)
		}
	}
}
