package tagless

import (
	"testing"

	pb "rpcarena/workers/go/arenapb"
)

func BenchmarkLargeData8192(b *testing.B) {
	c := table[mustIndexB(b, "EchoLargeData8192")].Request
	msg := &pb.LargeData8192{F1: 1, F8192: 2}
	body := c.Encode(nil, msg)
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, len(body))
		for b.Loop() {
			buf = c.Encode(buf[:0], msg)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			c.Decode(body, &pb.LargeData8192{})
		}
	})
}

func mustIndexB(b *testing.B, name string) int {
	i, err := MethodIndex(name)
	if err != nil {
		b.Fatal(err)
	}
	return i
}
