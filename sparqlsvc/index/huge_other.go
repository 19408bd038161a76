//go:build !linux

package index

// adviseHuge is a no-op where transparent huge pages cannot be requested.
func adviseHuge([]byte) {}
