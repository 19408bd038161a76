//go:build !linux

package site

import "errors"

// watcher is only implemented with inotify; elsewhere the handler resolves every request on the file system.
type watcher struct{}

func newWatcher(func(*pubEntry)) (*watcher, error) {
	return nil, errors.New("site: watching the rendered tree needs Linux")
}

func (w *watcher) track(string, *pubEntry) error { return errors.New("site: no watcher") }
func (w *watcher) watchDir(string, string) error { return errors.New("site: no watcher") }
func (w *watcher) lookup(string) *pubEntry       { return nil }
func (w *watcher) forget(*pubEntry)              {}
func (w *watcher) drain()                        {}
func (w *watcher) close() error                  { return nil }
