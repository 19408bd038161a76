package search_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ldhub/ldhub/api/search"
	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store"
	"github.com/ldhub/ldhub/content/store/catalog"
)

func names(t *testing.T, st *store.Store, ids map[string]bool) string {
	t.Helper()
	cat, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for id := range ids {
		if g, ok := cat.Groups[id]; ok {
			out = append(out, g.Name)
		} else if r, ok := cat.Repos[id]; ok {
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestMatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "data"), store.Options{Validate: func(context.Context, string, []byte) error { return nil }, NoWatch: true, HashCost: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sys := model.SystemActor
	mk := func(name, desc, parent string) string {
		g, err := st.CreateGroup(ctx, sys, model.Group{Name: name, Description: desc, ParentID: parent, Type: model.GroupPublic})
		if err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	top := mk("Infrastructure", "", "")
	mk("Road Vocabulary", "terms for roads", top)
	mk("Bridges", "the OTL of bridges", top)
	r, err := st.CreateRepository(ctx, sys, model.Repository{Name: "Signs", ParentID: top, Description: "traffic signs vocabulary"})
	if err != nil {
		t.Fatal(err)
	}
	idxDir := filepath.Join(dir, "index")
	idx, err := search.Open(ctx, idxDir, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ kind, text, want string }{
		{search.Group, "voc", "Road Vocabulary"},
		{search.Group, "VOCAB", "Road Vocabulary"},
		{search.Group, "otl", "Bridges"},
		{search.Group, "infra", "Bridges,Infrastructure,Road Vocabulary"}, // by path
		{search.Group, "road terms", "Road Vocabulary"},
		{search.Group, "road bridges", ""},
		{search.Repository, "voc", "Signs"},
		{search.Repository, "bridges", ""},
		{search.Group, "ocab", ""}, // prefixes only, not infixes
	} {
		got, err := idx.Match(ctx, tc.kind, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if n := names(t, st, got); n != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.kind, tc.text, n, tc.want)
		}
	}
	// Changes are seen on the next query; a deleted repository disappears.
	if _, err := st.UpdateRepository(ctx, sys, r.ID, catalog.RepositoryPatch{Name: ptr("Markings")}); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Match(ctx, search.Repository, "mark"); names(t, st, got) != "Markings" {
		t.Errorf("after rename: %v", got)
	}
	if _, err := st.DeleteRepository(ctx, sys, r.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Match(ctx, search.Repository, "mark"); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
	idx.Close()

	// Reopened from disk it answers the same; a broken index is rebuilt.
	idx, err = search.Open(ctx, idxDir, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Match(ctx, search.Group, "voc"); names(t, st, got) != "Road Vocabulary" {
		t.Errorf("reopened: %v", got)
	}
	idx.Close()
	if err := os.WriteFile(filepath.Join(idxDir, "index_meta.json"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err = search.Open(ctx, idxDir, st, nil)
	if err != nil {
		t.Fatalf("broken index not rebuilt: %v", err)
	}
	defer idx.Close()
	if got, _ := idx.Match(ctx, search.Group, "voc"); names(t, st, got) != "Road Vocabulary" {
		t.Errorf("rebuilt: %v", got)
	}
}

func ptr[T any](v T) *T { return &v }
