// Package pipelinetest builds a small hub for the tests of the pipeline, the site handler and the commands: a store
// in a temporary folder with one visible and one hidden repository.
package pipelinetest

import (
	"context"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/validator"
)

// Hub is a store with a group /org holding the visible repository /org/open and the hidden /org/closed.
type Hub struct {
	Store        *store.Store
	Dir          string
	Admin        model.Actor
	Open, Closed model.Repository
}

// Vocab is a small Turtle vocabulary with labels, a blank node and language tags.
const Vocab = `@prefix ex: <http://example.org/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<Thing> a owl:Class ; rdfs:label "Thing"@en, "Ding"@nl ; ex:part [ rdfs:label "anonymous part" ; <size> 3 ] .
<Other> a owl:Class ; rdfs:label "Other"@en ; rdfs:subClassOf <Thing> .
<size> a owl:DatatypeProperty ; rdfs:label "size" .
`

// New opens a fresh hub in t's temporary folder.
func New(t testing.TB) *Hub {
	t.Helper()
	return NewWithClock(t, nil)
}

// NewWithClock is New with the store's clock, which dates its commits, set to now (nil is time.Now): a test can
// publish what an author with a skewed clock pushes.
func NewWithClock(t testing.TB, now func() time.Time) *Hub {
	t.Helper()
	ctx := context.Background()
	h := &Hub{Dir: t.TempDir()}
	s, err := store.Open(ctx, h.Dir, store.Options{Validate: validator.Default(), NoWatch: true, HashCost: 4, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	h.Store = s
	adm, _, _, err := s.EnsureAdmin(ctx, "admin", "")
	if err != nil {
		t.Fatal(err)
	}
	h.Admin = model.ActorOf(adm)
	g, err := s.CreateGroup(ctx, h.Admin, model.Group{Name: "org"})
	if err != nil {
		t.Fatal(err)
	}
	if h.Open, err = s.CreateRepository(ctx, h.Admin, model.Repository{Name: "open", ParentID: g.ID, Visible: true}); err != nil {
		t.Fatal(err)
	}
	if h.Closed, err = s.CreateRepository(ctx, h.Admin, model.Repository{Name: "closed", ParentID: g.ID}); err != nil {
		t.Fatal(err)
	}
	return h
}

// Publish creates a publication (ext names the syntax) and returns it.
func (h *Hub) Publish(t testing.TB, repoID, name, ext, content string) model.Publication {
	t.Helper()
	p, err := h.Store.CreatePublication(context.Background(), h.Admin, repoID, model.PublicationMeta{Name: name, Description: "about " + name}, store.Content{Ext: ext, Data: []byte(content)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Update gives a publication new content (a new version).
func (h *Hub) Update(t testing.TB, id, ext, content string) model.Publication {
	t.Helper()
	p, err := h.Store.UpdatePublication(context.Background(), h.Admin, id, store.PublicationPatch{}, &store.Content{Ext: ext, Data: []byte(content)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
