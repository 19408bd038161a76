package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// packOf builds a pack of one object: its header as declared, then zlib of inflated bytes of zeros (built while
// compressing, never held whole).
func packOf(t *testing.T, typ byte, declared int64, deltaHeader []byte, inflated int64) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(1))
	c := byte(declared&15) | typ<<4
	size := declared >> 4
	for size > 0 {
		b.WriteByte(c | 0x80)
		c, size = byte(size&0x7f), size>>7
	}
	b.WriteByte(c)
	if typ == objRefDelta {
		b.Write(make([]byte, 20))
	}
	b.Write(deflated(deltaHeader, inflated))
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// deflated is zlib of prefix and n zeros. Compressing 300 MB takes seconds (tens under the race detector), so it
// is built the way a deflate stream allows: after a sync flush, each further MiB of zeros compresses to the same
// bytes (the window holds only zeros), which are repeated; an empty final block and the checksum end it.
func deflated(prefix []byte, n int64) []byte {
	const chunk = 1 << 20
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	zw.Write(prefix)
	zero := make([]byte, chunk)
	if n <= 2*chunk {
		for left := n; left > 0; left -= chunk {
			zw.Write(zero[:min(left, chunk)])
		}
		zw.Close()
		return b.Bytes()
	}
	zw.Write(zero)
	zw.Flush()
	zw.Write(zero)
	zw.Flush()
	before := b.Len()
	zw.Write(zero)
	zw.Flush()
	repeat := append([]byte(nil), b.Bytes()[before:]...)
	for i := int64(3); i < n/chunk; i++ {
		b.Write(repeat)
	}
	if rest := n % chunk; rest != 0 {
		panic("deflated: n must be whole MiB")
	}
	b.Write([]byte{0x01, 0x00, 0x00, 0xff, 0xff}) // final empty stored block
	// Adler-32 over zeros: A stays, B grows by A per byte.
	const mod = 65521
	c := adler32.Checksum(prefix)
	a, bb := uint64(c&0xffff), uint64(c>>16)
	bb = (bb + uint64(n)%mod*a) % mod
	binary.Write(&b, binary.BigEndian, uint32(bb<<16|a))
	return b.Bytes()
}

func uvarint(v uint64) []byte { return binary.AppendUvarint(nil, v) }

// TestPackLimitsWhileStreaming: a small pack that inflates to 300 MB is refused without the 300 MB ever being in
// memory, whether its header says so, lies about it, or a delta would build it.
func TestPackLimitsWhileStreaming(t *testing.T) {
	const huge = 300 << 20
	for _, tc := range []struct {
		name  string
		pack  func() []byte
		limit bool // a *LimitError rather than a malformed pack
	}{
		{"a blob declaring 300 MB", func() []byte { return packOf(t, 3, huge, nil, huge) }, true},
		{"a blob declaring 10 bytes and inflating to 300 MB", func() []byte { return packOf(t, 3, 10, nil, huge) }, false},
		{"a delta building 300 MB", func() []byte {
			return packOf(t, objRefDelta, 64, append(uvarint(10), uvarint(huge)...), 60)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pack := tc.pack()
			if len(pack) > 2<<20 {
				t.Fatalf("the pack is %d bytes, meant to be small", len(pack))
			}
			r, err := Init(filepath.Join(t.TempDir(), "r.git"))
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err = r.WritePack(bytes.NewReader(pack), PackLimits{})
			runtime.ReadMemStats(&after)
			var le *LimitError
			if tc.limit && !errors.As(err, &le) || !tc.limit && !errors.Is(err, ErrBadPack) {
				t.Fatalf("WritePack of a %d-byte pack: %v", len(pack), err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			if alloc > 8<<20 {
				t.Errorf("refusing it allocated %d bytes", alloc)
			}
			t.Logf("a %d-byte pack refused with %d bytes allocated: %v", len(pack), alloc, err)
			packs, _ := filepath.Glob(filepath.Join(r.Dir(), "objects", "pack", "*"))
			tmp, _ := filepath.Glob(filepath.Join(r.Dir(), "objects", "tmp_obj_*"))
			if len(packs)+len(tmp) > 0 {
				t.Errorf("files left by a refused pack: %v %v", packs, tmp)
			}
		})
	}
}

// TestPackWithinLimitsIsStored: the scan reads a real pack to its end and hands all of it on.
func TestPackWithinLimitsIsStored(t *testing.T) {
	r, err := Init(filepath.Join(t.TempDir(), "r.git"))
	if err != nil {
		t.Fatal(err)
	}
	pack := packOf(t, 3, 5000, nil, 5000)
	if err := r.WritePack(bytes.NewReader(pack), PackLimits{}); err != nil {
		t.Fatal(err)
	}
	h := sha1.New()
	io.WriteString(h, "blob 5000\x00")
	h.Write(make([]byte, 5000))
	var id [20]byte
	copy(id[:], h.Sum(nil))
	if n, err := r.BlobSize(id); err != nil || n != 5000 {
		t.Errorf("stored blob: %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "objects", "pack")); err != nil {
		t.Error(err)
	}
}

// TestDeflatedIsWhatItSays: the hand-built stream inflates to exactly its prefix and n zeros.
func TestDeflatedIsWhatItSays(t *testing.T) {
	const n = 8 << 20
	zr, err := zlib.NewReader(bytes.NewReader(deflated([]byte("ab"), n)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != n+2 || string(data[:2]) != "ab" || bytes.Count(data[2:], []byte{0}) != n {
		t.Errorf("inflated to %d bytes", len(data))
	}
}
