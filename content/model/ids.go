package model

import (
	"crypto/rand"
	"crypto/sha1"
	"fmt"
)

// Namespace of ldhub's name-based UUIDs: random once, fixed forever, so ids never change between releases.
var idNamespace = [16]byte{0x3d, 0x1c, 0x8a, 0x52, 0x9e, 0x47, 0x5b, 0x0f, 0x8c, 0x1d, 0x62, 0x7e, 0x44, 0x90, 0xa3, 0x15}

// NewID returns a random (version 4) UUID string.
func NewID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // never returns an error since Go 1.24
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return format(u)
}

// NameID returns the name-based (version 5, SHA-1) UUID of the parts joined by NUL. The same parts always give
// the same id, which is what makes a rebuild from git give the same ids.
func NameID(parts ...string) string {
	h := sha1.New()
	h.Write(idNamespace[:])
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0})
		}
		h.Write([]byte(p))
	}
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return format(u)
}

func format(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
