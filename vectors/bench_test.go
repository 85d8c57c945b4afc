package vectors_test

import (
	"context"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/vectors"
)

// BenchmarkForeignTrivial measures the line protocol alone: a trivial foreign fold (it answers
// without folding) driven over stdin/stdout. Target: >= 1 000 vectors/s. Each iteration is 1 000
// vectors, so even -benchtime 1x measures a steady stream rather than the process start.
func BenchmarkForeignTrivial(b *testing.B) {
	c, err := vectors.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	var small []vectors.Vector
	for _, v := range c.Vectors {
		if len(v.Events) <= 8 {
			small = append(small, v)
		}
	}
	n := 1000 * b.N
	run := vectors.Corpus{Vectors: make([]vectors.Vector, n)}
	for i := range run.Vectors {
		run.Vectors[i] = small[i%len(small)]
	}
	p, err := vectors.NewProcess(foreignFold("-bug", "trivial"), "")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.ResetTimer()
	start := time.Now()
	rep := vectors.Run(context.Background(), run, p, vectors.Config{})
	el := time.Since(start)
	b.StopTimer()
	if u := rep.Counts().Unknown; u > 0 {
		b.Fatalf("%d unknown verdicts", u)
	}
	b.ReportMetric(float64(n)/el.Seconds(), "vectors/s")
}

// BenchmarkCorpusInProcess measures one pass of the whole embedded corpus against the reference
// fold in process (target: well under 5 s), and the same corpus through the protocol to the
// reference fold behind it; protocol/in-process is their ratio.
func BenchmarkCorpusInProcess(b *testing.B) {
	c, err := vectors.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	p, err := vectors.NewProcess(foreignFold(), "")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var inproc, foreign time.Duration
	for range b.N {
		t := time.Now()
		if rep := vectors.Run(context.Background(), c, vectors.Reference{}, vectors.Config{}); !rep.OK() {
			b.Fatal("reference fold fails the corpus")
		}
		inproc += time.Since(t)
		t = time.Now()
		if rep := vectors.Run(context.Background(), c, p, vectors.Config{}); !rep.OK() {
			b.Fatal("reference fold behind the protocol fails the corpus")
		}
		foreign += time.Since(t)
	}
	b.ReportMetric(float64(inproc.Milliseconds())/float64(b.N), "ms/corpus")
	b.ReportMetric(float64(len(c.Vectors)*b.N)/inproc.Seconds(), "vectors/s")
	b.ReportMetric(float64(foreign)/float64(inproc), "protocol/in-process")
}
