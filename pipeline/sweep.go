package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldhub/ldhub/atomicfile"
	"github.com/ldhub/ldhub/site/tree"
)

// tmpPrefix starts the name of everything the pipeline stages before renaming it into place.
const tmpPrefix = atomicfile.TempPrefix

// sweep removes what renders killed half-way left behind: the staging folders, links and files named .tmp-*.
// Readers never see them (nothing points there), but a process killed in a render never renames or removes them,
// so without a sweep each crash leaks their disk. Only one pipeline writes a tree, so at its start nothing of
// this process is in flight. Rendered folders are not descended into: no staging happens inside them.
func (p *Pipeline) sweep() (int, error) {
	n := 0
	err := filepath.WalkDir(p.o.Out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p.o.Out && os.IsNotExist(err) {
				return fs.SkipAll // nothing rendered yet
			}
			return err
		}
		if path == p.o.Out {
			return nil
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			if err := os.RemoveAll(path); err != nil {
				return err
			}
			n++
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		parent := filepath.Base(filepath.Dir(path))
		grand := filepath.Base(filepath.Dir(filepath.Dir(path)))
		// Inside .ld only v/ holds more staging; its version folders and the latest folders are finished renders.
		if parent == tree.MetaDir && d.Name() != tree.Versions || parent == tree.Versions && grand == tree.MetaDir {
			return fs.SkipDir
		}
		return nil
	})
	return n, err
}
