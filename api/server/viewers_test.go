package server_test

import (
	"net/http/httptest"
	"testing"

	"github.com/ldhub/ldhub/api/auth"
	"github.com/ldhub/ldhub/api/server"
)

// The site's access policy for repositories that are not visible: a valid credential with a role there may read,
// nobody else (anonymous, wrong or revoked credentials, a stranger, a role on another group).
func TestViewersCanView(t *testing.T) {
	f := newFixture(t)
	v := server.Viewers{Auth: auth.New(f.st, auth.Options{}), Store: f.st}
	for name, c := range f.callers {
		want := c.role != 0 || c.admin
		if c.authFails {
			want = false
		}
		for _, repo := range []string{"hid", "inner"} {
			r := httptest.NewRequest("GET", "/", nil)
			if c.id != "" {
				r.SetBasicAuth(c.id, c.secret)
			}
			if got := v.CanView(r, f.ids[repo]); got != want {
				t.Errorf("%s on %s: CanView %v, want %v", name, repo, got, want)
			}
		}
	}
	// A role on one group gives nothing on a repository outside it.
	r := httptest.NewRequest("GET", "/", nil)
	r.SetBasicAuth(f.callers["viewer"].id, f.callers["viewer"].secret)
	if v.CanView(r, "no-such-repository") {
		t.Error("viewer can view a repository that does not exist")
	}
}
