package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/content/model"
)

// Issue 15: a publication URI may not lie below another publication's (its versions and resources own those URLs)
// nor have one below it, and no segment may be a name the direct-URL site uses. Each refusal names the conflict
// and changes nothing.
func TestPublicationURIsCannotShadow(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{PublicationURI: "pub"}, ttl("<a> <b> 1 .")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{PublicationURI: "deep/under/leaf"}, ttl("<a> <b> 1 .")); err != nil {
		t.Fatal(err)
	}
	before := e.commits(t, e.repo.ID)
	for _, tc := range []struct {
		uri  string
		kind error
		name string // what the error must name
	}{
		{"pub/versions/3c5afce", model.ErrInvalid, "versions"},
		{"pub/Thing", model.ErrConflict, `"pub"`},
		{"pub/a/b", model.ErrConflict, `"pub"`},
		{"deep", model.ErrConflict, "deep/under/leaf"},
		{"deep/under", model.ErrConflict, "deep/under/leaf"},
		{"deep/under/leaf/x", model.ErrConflict, `"deep/under/leaf"`},
		{"index.html", model.ErrInvalid, "index.html"},
		{"x/void.ttl", model.ErrInvalid, "void.ttl"},
		{"core.ttl", model.ErrInvalid, ".ttl"},
		{"a/sparql", model.ErrInvalid, "sparql"},
	} {
		_, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{PublicationURI: tc.uri}, ttl("<a> <b> 2 ."))
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("publicationUri %q: %v, want %v naming %s", tc.uri, err, tc.kind, tc.name)
		}
	}
	if n := e.commits(t, e.repo.ID); n != before {
		t.Errorf("refused creates made %d commits", n-before)
	}
	// Siblings that merely share a prefix of characters are fine.
	for _, uri := range []string{"pubs", "pub-2", "deep/under2"} {
		if _, err := e.s.CreatePublication(ctx, e.pub, e.repo.ID, model.PublicationMeta{PublicationURI: uri}, ttl("<a> <b> 3 .")); err != nil {
			t.Errorf("publicationUri %q: %v", uri, err)
		}
	}
}
