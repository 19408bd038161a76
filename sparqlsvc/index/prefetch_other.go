//go:build !amd64

package index

import "unsafe"

// prefetch does nothing where no instruction is wired: a hint only.
func prefetch(addr unsafe.Pointer) {}
