package apierr

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ldhub/ldhub/content/rdf"
)

func TestWrite(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		message    string
		wantDetail bool
		wantAuth   bool
	}{
		{"api error", New(http.StatusConflict, "pathSegment taken"), 409, "pathSegment taken", false, false},
		{"unauthorized", New(http.StatusUnauthorized, "credentials required"), 401, "credentials required", false, true},
		{"syntax", FromSyntax(&rdf.SyntaxError{Syntax: "turtle", Line: 12, Column: 7, Msg: "expected '.'"}, "text/turtle"),
			400, "invalid turtle: turtle: line 12, column 7: expected '.'", true, false},
		// A package below this one (sparqlsvc/protocol) returns its own typed error; it renders the same way.
		{"typed error of another package", &refusal{status: 406, msg: "results can be sent as x"}, 406, "results can be sent as x", false, false},
		{"typed syntax error", &refusal{status: 400, msg: "invalid turtle: bad", format: "text/turtle",
			err: &rdf.SyntaxError{Syntax: "turtle", Line: 12, Column: 7, Msg: "bad"}}, 400, "invalid turtle: bad", true, false},
		{"internal hides cause", errors.New("disk on fire at /var/lib/secret"), 500, "internal error", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, httptest.NewRequest("GET", "/api/v3/groups/x", nil), c.err)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if got := rec.Header().Get("WWW-Authenticate") != ""; got != c.wantAuth {
				t.Errorf("WWW-Authenticate present = %v", got)
			}
			var b map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			if b["message"] != c.message || b["path"] != "/api/v3/groups/x" || b["status"] != float64(c.status) ||
				b["error"] != http.StatusText(c.status) || b["timestamp"] == nil {
				t.Errorf("body %v", b)
			}
			if _, ok := b["details"]; ok != c.wantDetail {
				t.Errorf("details present = %v", ok)
			}
			if c.wantDetail {
				d := b["details"].(map[string]any)
				if d["line"] != float64(12) || d["column"] != float64(7) || d["format"] != "text/turtle" {
					t.Errorf("details %v", d)
				}
			}
		})
	}
}

// refusal stands for an error type of a package that does not import apierr.
type refusal struct {
	status      int
	msg, format string
	err         error
}

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Unwrap() error        { return r.err }
func (r *refusal) HTTPStatus() int      { return r.status }
func (r *refusal) SyntaxFormat() string { return r.format }
