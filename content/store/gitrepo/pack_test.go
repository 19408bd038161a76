package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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

// deflated is zlib of prefix and n zeros; the 300 MB streams are made once.
func deflated(prefix []byte, n int64) []byte {
	key := string(prefix) + strconv.FormatInt(n, 10)
	if z, ok := deflatedCache[key]; ok {
		return z
	}
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	zw.Write(prefix)
	zero := make([]byte, 1<<20)
	for left := n; left > 0; left -= int64(len(zero)) {
		zw.Write(zero[:min(left, int64(len(zero)))])
	}
	zw.Close()
	deflatedCache[key] = b.Bytes()
	return b.Bytes()
}

var deflatedCache = map[string][]byte{}

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
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("refusing it allocated %d bytes", alloc)
			}
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
