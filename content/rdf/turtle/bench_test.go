package turtle_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ldhub/ldhub/content/conformance"
	"github.com/ldhub/ldhub/content/rdf"
	"github.com/ldhub/ldhub/content/rdf/ntriples"
	"github.com/ldhub/ldhub/content/rdf/turtle"
)

// benchFile is a BSBM-shaped Turtle file from /work/shared/bench/gen-data.py; LDHUB_BENCH_TTL overrides it.
func benchFile(b *testing.B) []byte {
	path := os.Getenv("LDHUB_BENCH_TTL")
	if path == "" {
		path = "/tmp/bsbm-100k.ttl"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("benchmark input missing (make it with gen-data.py 100000 -o %s): %v", path, err)
	}
	return data
}

// BenchmarkDecodeBSBM measures parsing alone: every quad is produced and dropped.
func BenchmarkDecodeBSBM(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		n = 0
		d := turtle.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
		for {
			_, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
	reportCPU(b, cpu0, n)
}

// BenchmarkTurtleToNTriples is the whole conversion: parse and write canonical N-Triples to io.Discard.
func BenchmarkTurtleToNTriples(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var n int
	cpu0 := conformance.CPUTime()
	for b.Loop() {
		n = 0
		d := turtle.NewDecoder(bytes.NewReader(data), rdf.DecodeOptions{Blanks: rdf.NewBlankNodes("")})
		e := ntriples.NewEncoder(io.Discard, rdf.EncodeOptions{})
		for {
			q, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := e.Encode(q); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
	reportCPU(b, cpu0, n)
}

// BenchmarkSerdiReference runs `serdi -i turtle -o ntriples` on the same file, so that the ratio to a C parser is
// taken on the same machine in the same run (serdi's time includes starting the process and reading the file).
func BenchmarkSerdiReference(b *testing.B) {
	path := os.Getenv("LDHUB_BENCH_TTL")
	if path == "" {
		path = "/tmp/bsbm-100k.ttl"
	}
	data := benchFile(b)
	serdi, err := exec.LookPath("serdi")
	if err != nil {
		b.Skip("serdi not installed (apt-get install serdi)")
	}
	b.SetBytes(int64(len(data)))
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(serdi, "-i", "turtle", "-o", "ntriples", path)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func reportCPU(b *testing.B, since time.Duration, triples int) {
	cpu := conformance.CPUTime() - since
	if cpu <= 0 {
		return
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(triples)*float64(b.N)/cpu.Seconds(), "triples/cpu-s")
}
