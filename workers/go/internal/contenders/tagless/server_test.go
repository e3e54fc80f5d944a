package tagless

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/connserver/connservertest"
)

func dialServer(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := connservertest.Dial(t, NewServer())
	return c, bufio.NewReader(c)
}

func pack(callID uint32, kind uint16, body []byte) []byte {
	frame := append(make([]byte, headerSize), body...)
	putHeader(frame, callID, kind)
	return frame
}

func readReply(t *testing.T, r *bufio.Reader) (uint32, uint16, []byte) {
	t.Helper()
	callID, status, body, err := readFrame(r, nil, MaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	return callID, status, body
}

// Every vector through a real server: the reply is the expected response's
// encoding, byte for byte (the Python codec's, by TestEncodingIsPythonsByteForByte).
func TestServerAnswersEveryVector(t *testing.T) {
	c, r := dialServer(t)
	for _, v := range loadVectors(t) {
		c.Write(pack(uint32(v.index), v.kind, v.method.Request.Encode(nil, v.request)))
		callID, status, body := readReply(t, r)
		if callID != uint32(v.index) || status != StatusOK {
			t.Fatalf("vector %d %s: call %d status %d %q", v.index, v.method.Name, callID, status, body)
		}
		got := v.method.NewResponse()
		if err := v.method.Response.Decode(body, got); err != nil || !arena.Equal(got, v.want) {
			t.Errorf("vector %d %s: %v (%v)", v.index, v.method.Name, got, err)
		}
		if want := v.method.Response.Encode(nil, v.want); !bytes.Equal(body, want) && v.method.Name != "Distance" {
			t.Errorf("vector %d %s: reply %x, want %x", v.index, v.method.Name, body, want)
		}
	}
}

func TestPipelinedCallsComeBackWithTheirIDs(t *testing.T) {
	c, r := dialServer(t)
	hello := table[mustIndex(t, "SayHello")]
	var batch []byte
	for i := range 5 {
		batch = append(batch, pack(uint32(100+i), uint16(mustIndex(t, "SayHello")), []byte{2, 'n', byte('0' + i)})...)
	}
	c.Write(batch)
	for i := range 5 {
		callID, status, body := readReply(t, r)
		got := hello.NewResponse()
		hello.Response.Decode(body, got)
		if callID != uint32(100+i) || status != StatusOK || got.(interface{ GetMessage() string }).GetMessage() != "Hello n"+string(rune('0'+i)) {
			t.Fatalf("reply %d: call %d status %d %v", i, callID, status, got)
		}
	}
}

func TestBadRequestsGetErrorRepliesAndTheConnectionSurvives(t *testing.T) {
	c, r := dialServer(t)
	hello := uint16(mustIndex(t, "SayHello"))
	rand := uint16(mustIndex(t, "GetRandNums"))
	for _, step := range []struct {
		kind   uint16
		body   []byte
		status uint16
	}{
		{hello, []byte("\x09abc"), StatusBadRequest},
		{999, nil, StatusUnknownMethod},
		{rand, []byte{0x41, 0x42, 0x0f, 0, 0, 0, 0, 0}, StatusBadRequest},    // 1,000,001 values: over the cap
		{rand, []byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}, StatusBadRequest}, // 2^31-1 values
		{hello, []byte("\x02ok"), StatusOK},
	} {
		c.Write(pack(7, step.kind, step.body))
		if callID, status, body := readReply(t, r); callID != 7 || status != step.status {
			t.Fatalf("kind %d: status %d %q, want %d", step.kind, status, body, step.status)
		}
	}
}

// A repeated count is capped as every count a peer announces: 1,000,001 empty
// strings (one byte each on the wire) are a bad request naming the cap.
func TestARepeatedCountOverTheCapIsABadRequest(t *testing.T) {
	strings := uint16(mustIndex(t, "EchoStrings"))
	for count, want := range map[int]uint16{1_000_000: StatusOK, 1_000_001: StatusBadRequest} {
		body := append(appendVarint(nil, uint64(count)), make([]byte, count)...)
		status, reply := Handle(strings, body, nil, MaxFrame)
		if status != want || (want == StatusBadRequest && !bytes.Contains(reply, []byte("over the cap of 1000000"))) {
			t.Errorf("%d strings: status %d %.80q, want %d", count, status, reply, want)
		}
	}
}

func TestAnOversizedFrameClosesTheConnection(t *testing.T) {
	c, r := dialServer(t)
	header := pack(1, 0, nil)
	le.PutUint32(header, MaxFrame+1)
	c.Write(header)
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("connection still open after a frame over 64 MiB")
	}
}

// A header may claim 64 MiB: the buffer grows with the bytes that really come.
func TestALyingHeaderDoesNotAllocateItsClaim(t *testing.T) {
	header := pack(1, 0, make([]byte, 100))
	le.PutUint32(header, MaxFrame)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := ServeStream(bytes.NewReader(header), io.Discard, MaxFrame)
	runtime.ReadMemStats(&after)
	var frameErr *FrameError
	if !errors.As(err, &frameErr) {
		t.Errorf("a cut-short frame gives %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes for a 110-byte stream", grew)
	}
}

// A connection that stops sending, between frames or inside one, is closed
// after the idle timeout (here short; 60 s in a served worker).
func TestAnIdleConnectionIsClosed(t *testing.T) {
	c := connservertest.Dial(t, connserver.NewIdle(serveConnIn(Tagless, nil), 100*time.Millisecond))
	c.SetDeadline(time.Now().Add(10 * time.Second)) // bounds the test, far beyond the idle timeout
	r := bufio.NewReader(c)
	c.Write(pack(1, uint16(mustIndex(t, "SayHello")), []byte("\x02ok")))
	if callID, status, _ := readReply(t, r); callID != 1 || status != StatusOK {
		t.Fatalf("call before going idle: %d, status %d", callID, status)
	}
	c.Write(pack(2, 0, nil)[:4]) // a header begun, then nothing
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle connection gave %v, want it closed", err)
	}
}
