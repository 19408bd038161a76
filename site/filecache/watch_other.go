//go:build !linux

package filecache

import "errors"

// watcher is only implemented with inotify; elsewhere the handler resolves every request on the file system.
type watcher struct{}

func newWatcher(func(*Entry)) (*watcher, error) {
	return nil, errors.New("filecache: watching the rendered tree needs Linux")
}

func (w *watcher) track(string, *Entry) error    { return errors.New("filecache: no watcher") }
func (w *watcher) watchDir(string, string) error { return errors.New("filecache: no watcher") }
func (w *watcher) lookup(string) *Entry          { return nil }
func (w *watcher) forget(*Entry)                 {}
func (w *watcher) drain()                        {}
func (w *watcher) close() error                  { return nil }
