package site

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/site/html"
)

// The pages' script is answered at html.ScriptPath as JavaScript, cacheable for good when versioned; other
// methods and paths beside it are not.
func TestServeScript(t *testing.T) {
	h, err := NewHandler(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", html.ScriptPath+"?v=1", nil))
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") ||
		!strings.Contains(w.Body.String(), "article.term") || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("GET script: %d %v %.80s", w.Code, w.Header(), w.Body)
	}
	for _, c := range []struct{ method, path string }{{"POST", html.ScriptPath}, {"GET", html.ScriptPath + "x"}, {"GET", "/_ldhub/../etc/passwd"}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(c.method, c.path, nil))
		if w.Code == 200 {
			t.Errorf("%s %s: 200", c.method, c.path)
		}
	}
}
