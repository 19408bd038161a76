package index

import (
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// adviseHuge asks the kernel to back the 2 MiB-aligned middle of a freshly allocated buffer with transparent huge
// pages (the kernel's default here is "madvise": only on request). On this VM each first touch of a 4 KiB page
// costs several microseconds, which made page faults the largest part of an index build; a huge page is one fault
// per 2 MiB. It is only advice: when huge pages are not available nothing changes, so errors are ignored.
func adviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end <= start {
		return
	}
	_ = syscall.Madvise(b[start-p:end-p], syscall.MADV_HUGEPAGE)
}

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map a range's pages, reading them as a read would, in one
// call instead of a fault per page.
const madvPopulateRead = 22

// populate maps b's pages into the process (Dataset.Warm); on an older kernel it touches one byte per page.
func populate(b []byte) {
	if syscall.Madvise(b, madvPopulateRead) != nil {
		touch(b)
	}
}
