package hub

import (
	"context"
	"testing"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/pipeline"
	"github.com/ldhub/ldhub/pipeline/pipelinetest"
	"github.com/ldhub/ldhub/site"
)

// directURL looks up only the paths server.Server hands to the site unseen: a publication of a group named ns (or
// api, git) is served by net/http through the server's own routing, never by the fast path.
func TestDirectURLLookup(t *testing.T) {
	ctx := context.Background()
	hub := pipelinetest.New(t)
	hub.Publish(t, hub.Open.ID, "core", ".ttl", pipelinetest.Vocab)
	ns, err := hub.Store.CreateGroup(ctx, hub.Admin, model.Group{Name: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := hub.Store.CreateRepository(ctx, hub.Admin, model.Repository{Name: "vocab", ParentID: ns.ID, Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	hub.Publish(t, repo.ID, "core", ".ttl", pipelinetest.Vocab)
	out := t.TempDir()
	p, err := pipeline.New(pipeline.Options{Store: hub.Store, Out: out, BaseURL: "http://hub.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	h, err := site.NewHandler(site.Options{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	lookup := directURL(h)
	if _, ok := lookup("/org/open/core", "", "", ""); !ok {
		t.Error("/org/open/core is not looked up")
	}
	if _, ok := h.Prepared("/ns/vocab/core", "", "", ""); !ok {
		t.Fatal("the site has no answer for /ns/vocab/core: the test proves nothing")
	}
	for _, path := range []string{"/ns/vocab/core", "/api/v3/groups", "/git/org/open.git"} {
		if _, ok := lookup(path, "", "", ""); ok {
			t.Errorf("%s is looked up by the fast path", path)
		}
	}
}
