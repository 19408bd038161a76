//go:build !linux

package index

// adviseHuge is a no-op where transparent huge pages cannot be requested.
func adviseHuge([]byte) {}

// populate maps b's pages into the process by touching one byte per page (Dataset.Warm).
func populate(b []byte) { touch(b) }
