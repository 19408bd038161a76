//go:build !linux

package atomicfile

import (
	"io"
	"os"
)

func writeDirect(tmp *os.File, write func(io.Writer) error) error { return write(tmp) }
