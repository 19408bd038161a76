package catalog

import (
	"context"
	"fmt"
	"reflect"

	"github.com/ldhub/ldhub/content/model"
	"github.com/ldhub/ldhub/content/store/gitrepo"
)

// Mirror makes the catalogue's groups and repositories exactly the given records, in one commit (none when
// nothing differs). A read replica keeps the records of its primary this way; its credentials and grants are its
// own and are left alone. The records are trusted: they are the primary's, which checked them when they were made.
func (c *Catalog) Mirror(ctx context.Context, groups []model.Group, repos []model.Repository) error {
	return c.update(ctx, model.SystemActor, "Follow the primary's catalogue", func(st *State, tx *gitrepo.Tx) error {
		wantG := map[string]model.Group{}
		for _, g := range groups {
			if !model.ValidSegment(g.ID) {
				return model.Invalidf("group id %q", g.ID)
			}
			wantG[g.ID] = g
		}
		wantR := map[string]model.Repository{}
		for _, r := range repos {
			if !model.ValidSegment(r.ID) {
				return model.Invalidf("repository id %q", r.ID)
			}
			wantR[r.ID] = r
		}
		if err := mirrorDir(tx, groupsDir, st.Groups, wantG); err != nil {
			return err
		}
		return mirrorDir(tx, reposDir, st.Repos, wantR)
	})
}

func mirrorDir[T any](tx *gitrepo.Tx, dir string, have, want map[string]T) error {
	for id := range have {
		if _, ok := want[id]; !ok {
			tx.Delete(dir + "/" + id + ".json")
		}
	}
	for id, v := range want {
		if old, ok := have[id]; ok && reflect.DeepEqual(old, v) {
			continue
		}
		if err := put(tx, dir, id, v); err != nil {
			return fmt.Errorf("catalog: mirror: %w", err)
		}
	}
	return nil
}
