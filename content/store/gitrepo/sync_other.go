//go:build !linux

package gitrepo

// syncObjects is a no-op where syncfs is not available: ref updates stay atomic, but objects are only as durable as
// the operating system's write-back makes them.
func syncObjects(dir string) error { return nil }
