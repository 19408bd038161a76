package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
)

// TestServeLanguage runs `ldhub serve --language it`, publishes the W3C Organization Ontology (titles, labels and
// definitions in en, es, fr, it, ja) and asks for its page with curl as a reader would: no Accept-Language gets
// the hub's Italian, each language its own page, the switch's ?lang= links choose whatever the header says, and
// negotiated pages say Vary: Accept-Language. A --language that is no language tag stops serve.
func TestServeLanguage(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		conformance.Missing(t, "curl is not installed")
	}
	bin := ldhubBinary(t)
	if out, err := exec.Command(bin, "serve", "--data", t.TempDir(), "--language", "x-klingon").CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "--language") {
		t.Errorf("serve --language x-klingon: %v\n%s", err, out)
	}
	const id, secret = "root", "language-test-secret-1"
	data, addr := t.TempDir(), freeAddr(t)
	p := startHubArgs(t, bin, []string{"serve", "--data", data, "--addr", addr, "--language", "it"},
		"LDHUB_ADMIN_ID="+id, "LDHUB_ADMIN_SECRET="+secret)
	defer p.stop(t)
	c := newClient(addr, id, secret)
	defer c.close()
	repo := vocabRepository(t, c)
	raw, err := os.ReadFile("../../content/vocab/testdata/org.nq")
	if err != nil {
		t.Fatal(err)
	}
	nt := regexp.MustCompile(`(?m) <[^>]*> \.$`).ReplaceAll(raw, []byte(" ."))
	body, ctype := multipartBody("metadata", "meta.json", `{"name":"org"}`, "content", "org.nt", string(nt))
	var pub pubListItem
	c.must(t, "POST", "/api/v3/repositories/"+repo+"/publications", ctype, body, &pub)
	page := "http://" + addr + "/org/vocab/org"
	curl := func(url string, header ...string) (string, string) {
		t.Helper()
		args := []string{"-sS", "-D", "-", "-H", "Accept: text/html"}
		for _, h := range header {
			args = append(args, "-H", h)
		}
		out, err := exec.Command("curl", append(args, url)...).CombinedOutput()
		if err != nil {
			t.Fatalf("curl %s: %v\n%s", url, err, out)
		}
		head, body, _ := strings.Cut(string(out), "\r\n\r\n")
		return head, body
	}
	deadline := time.Now().Add(60 * time.Second)
	for head, _ := curl(page); !strings.HasPrefix(head, "HTTP/1.1 200"); head, _ = curl(page) {
		if time.Now().After(deadline) {
			t.Fatalf("%s not live within 60 s:\n%s", page, p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	vary := regexp.MustCompile(`(?im)^Vary: .*Accept-Language`)
	for _, tc := range []struct {
		url, al, h1 string
		varies      bool
	}{
		{page, "", `<h1 id="title" lang="it">Ontologia delle organizzazioni</h1>`, true},
		{page, "Accept-Language: fr", `<h1 id="title" lang="fr">Ontologie des organisations</h1>`, true},
		{page, "Accept-Language: de;q=0.9, en;q=0.5", `<h1 id="title" lang="en">Core organization ontology</h1>`, true},
		{page, "Accept-Language: zh-TW", `<h1 id="title" lang="it">Ontologia delle organizzazioni</h1>`, true},
		{page + "?lang=es", "Accept-Language: fr", `<h1 id="title" lang="es">Ontología de organizaciones</h1>`, false},
		{page + "/versions/" + pub.Versions[0].Version, "Accept-Language: fr", `lang="fr">Ontologie des organisations`, true},
	} {
		head, body := curl(tc.url, tc.al)
		if !strings.HasPrefix(head, "HTTP/1.1 200") || !strings.Contains(body, tc.h1) {
			t.Errorf("curl %s -H %q: %.40s, want %s; got %s", tc.url, tc.al, head, tc.h1, regexp.MustCompile(`<h1[^>]*>[^<]*</h1>`).FindString(body))
		}
		if vary.MatchString(head) != tc.varies {
			t.Errorf("curl %s -H %q: Vary on Accept-Language %v, want %v:\n%s", tc.url, tc.al, !tc.varies, tc.varies, head)
		}
		if tc.varies || strings.Contains(tc.url, "?lang=") {
			if !strings.Contains(body, `<nav class="langs" aria-label="Language">`) {
				t.Errorf("curl %s -H %q: no language switch", tc.url, tc.al)
			}
		}
	}
	if t.Failed() {
		t.Logf("server log:\n%s", p.logs.String())
	}
}
