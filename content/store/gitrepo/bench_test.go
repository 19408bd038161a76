package gitrepo

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkCommit measures one small commit (a blob, a tree, a commit, the ref move), with and without flushing
// the objects to disk first; "no-sync" is the reference for the cost of durability.
func BenchmarkCommit(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		name := "sync"
		if noSync {
			name = "no-sync"
		}
		b.Run(name, func(b *testing.B) {
			r, err := Init(filepath.Join(b.TempDir(), "r.git"))
			if err != nil {
				b.Fatal(err)
			}
			r.NoSync = noSync
			i := 0
			for b.Loop() {
				i++
				if _, err := r.Transact(context.Background(), put(map[string]string{"dir/a.ttl": fmt.Sprint(i)}, "m")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
