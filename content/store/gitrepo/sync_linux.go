package gitrepo

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncObjects makes the objects just written durable before the ref that names them moves. go-git writes loose
// objects and packs without fsync; syncfs flushes the repository's file system in one call, so after a power cut
// the ref never points at objects that were lost.
func syncObjects(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("gitrepo: sync %s: %w", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("gitrepo: sync %s: %w", dir, err)
	}
	return nil
}
