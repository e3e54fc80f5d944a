package tagless

import (
	"bufio"
	"bytes"
	"errors"
	"runtime"
	"testing"
)

// fuzzMaxFrame is small so that oversized frames are in the fuzzer's reach; it
// also caps GetRandNums replies (maxFrame/4 values).
const fuzzMaxFrame = 64 << 10

// allocBound: decoding builds Go structs, larger than their wire form by a
// constant factor (an empty string: 1 byte on the wire, a 16-byte header in a
// slice that may double), plus the largest legitimate reply and slack for the
// runtime. A header's claimed length is not in it: only bytes that arrive count.
func allocBound(input int) uint64 { return uint64(64*input + 8*fuzzMaxFrame + 256<<10) }

// FuzzTaglessFrame feeds arbitrary bytes to the server's connection handler as
// one connection's stream. It must never panic or hang, never allocate beyond
// allocBound, answer every whole frame in order with its call id and a known
// status, and stop (the connection closes) at the first frame over the limit or
// cut short.
//
//	go test -run=^$ -fuzz=FuzzTaglessFrame -fuzztime=10s ./internal/contenders/tagless/
func FuzzTaglessFrame(f *testing.F) {
	for _, seed := range seeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := ServeStream(bytes.NewReader(data), &out, fuzzMaxFrame)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > allocBound(len(data)) {
			t.Fatalf("allocated %d bytes for %d input bytes", grew, len(data))
		}
		ids, complete := requestIDs(data)
		var frameErr *FrameError
		if complete != (err == nil) || (err != nil && !errors.As(err, &frameErr)) {
			t.Fatalf("stream complete %v, ServeStream %v", complete, err)
		}
		checkReplies(t, out.Bytes(), ids)
	})
}

// requestIDs are the call ids of the whole frames of a stream, up to the first
// bad one; complete says whether the stream ended cleanly between frames.
func requestIDs(data []byte) ([]uint32, bool) {
	var ids []uint32
	for len(data) > 0 {
		if len(data) < headerSize {
			return ids, false
		}
		size := int(le.Uint32(data))
		if size > fuzzMaxFrame || size > len(data)-headerSize {
			return ids, false
		}
		ids, data = append(ids, le.Uint32(data[4:])), data[headerSize+size:]
	}
	return ids, true
}

func checkReplies(t *testing.T, out []byte, ids []uint32) {
	r := bufio.NewReader(bytes.NewReader(out))
	for i, id := range ids {
		callID, status, body, err := readFrame(r, nil, MaxFrame)
		if err != nil || callID != id || status > StatusInternal {
			t.Fatalf("reply %d: call %d (want %d) status %d, %v", i, callID, id, status, err)
		}
		if status != StatusOK && len(body) == 0 {
			t.Fatalf("reply %d: status %d without a message", i, status)
		}
	}
	if r.Buffered() > 0 {
		t.Fatalf("%d bytes after the %d replies", r.Buffered(), len(ids))
	}
}

// seeds: a valid frame of every vector (cut to 4 KiB), two pipelined frames,
// and the classic bad frames; testdata/fuzz/FuzzTaglessFrame holds more.
func seeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, v := range loadVectors(t) {
		body := v.method.Request.Encode(nil, v.request)
		out = append(out, pack(uint32(v.index), v.kind, body[:min(len(body), 4096)]))
	}
	oversized := pack(1, 0, nil)
	le.PutUint32(oversized, fuzzMaxFrame+1)
	return append(out,
		append(pack(1, 10, []byte("\x03abc")), pack(2, 12, []byte{5, 0, 0, 0, 1, 0, 0, 0})...),
		oversized, pack(3, 999, nil), pack(4, 5, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}), []byte{1, 2, 3})
}
