package tcpraw

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/connserver"
	"rpcarena/workers/go/internal/connserver/connservertest"
	"rpcarena/workers/go/internal/vectors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func dialServer(t *testing.T) net.Conn {
	t.Helper()
	return connservertest.Dial(t, NewServer())
}

// The floor has no semantics: every vector's protobuf request comes back unchanged.
func TestServerEchoesEveryVectorPayload(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := dialServer(t)
	var buf []byte
	for i, v := range vs {
		m, _ := arena.LookupMethod(v.Method)
		req := m.NewRequest()
		if err := protojson.Unmarshal(v.Request, req); err != nil {
			t.Fatal(err)
		}
		payload, _ := proto.Marshal(req)
		sent := frame(payload)
		if _, err := c.Write(sent); err != nil {
			t.Fatal(err)
		}
		if buf, err = readFrame(c, buf); err != nil || !bytes.Equal(buf, sent) {
			t.Fatalf("vector %d: echo differs (%v)", i, err)
		}
	}
}

func TestServerClosesOnOversizedFrame(t *testing.T) {
	c := dialServer(t)
	c.Write(binary.BigEndian.AppendUint32(nil, maxFrame+1))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after a frame over the limit")
	}
}

// A header may claim the limit: the buffer grows with the bytes that really come.
func TestALyingHeaderDoesNotAllocateItsClaim(t *testing.T) {
	stream := append(binary.BigEndian.AppendUint32(nil, maxFrame), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	buf, err := readFrame(bytes.NewReader(stream), nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(buf) != 104 {
		t.Errorf("a cut-short frame gives %d bytes, %v", len(buf), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes for a 104-byte stream", grew)
	}
}

// A connection that stops sending, between frames or inside one, is closed
// after the idle timeout (here short; 60 s in a served worker).
func TestAnIdleConnectionIsClosed(t *testing.T) {
	c := connservertest.Dial(t, connserver.NewIdle(echo, 100*time.Millisecond))
	c.SetDeadline(time.Now().Add(10 * time.Second)) // bounds the test, far beyond the idle timeout
	sent := frame([]byte("abc"))
	c.Write(sent)
	if got, err := readFrame(c, nil); err != nil || !bytes.Equal(got, sent) {
		t.Fatalf("echo before going idle: %q, %v", got, err)
	}
	c.Write(binary.BigEndian.AppendUint32(nil, 10)) // a frame begun, then nothing
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("an idle connection gave %v, want it closed", err)
	}
}

// A frame trickled a byte at a time, each byte well within the idle timeout,
// is closed once the frame has not arrived whole within it: a deadline moved at
// every read kept such a request for ever.
func TestATrickledFrameIsClosed(t *testing.T) {
	c := connservertest.Dial(t, connserver.NewIdle(echo, 300*time.Millisecond))
	c.SetDeadline(time.Now().Add(10 * time.Second))
	trickled := frame(bytes.Repeat([]byte("x"), 100))
	for _, b := range trickled {
		if _, err := c.Write([]byte{b}); err != nil {
			return // closed: what the deadline does
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got, err := readFrame(c, nil); err == nil {
		t.Fatalf("a frame trickled over %v was echoed (%d bytes), want the connection closed", 50*time.Millisecond*time.Duration(len(trickled)), len(got))
	}
}

// countingConn counts the reads of its connection that returned bytes.
type countingConn struct {
	net.Conn
	reads *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.reads.Add(1)
	}
	return n, err
}

// The echo reads through a buffer: a frame's header and payload come in one
// read, not one each.
func TestAFrameTakesOneRead(t *testing.T) {
	var reads atomic.Int64
	c := connservertest.Dial(t, connserver.NewIdle(func(c net.Conn) { echo(countingConn{c, &reads}) }, 10*time.Second))
	c.SetDeadline(time.Now().Add(10 * time.Second))
	sent := frame(bytes.Repeat([]byte("x"), 100))
	for i := 0; i < 3; i++ {
		c.Write(sent)
		if got, err := readFrame(c, nil); err != nil || !bytes.Equal(got, sent) {
			t.Fatalf("echo %d: %q, %v", i, got, err)
		}
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("3 frames took %d reads, want 3", n)
	}
}

// Frames written together (pipelined) are each echoed whole, in order: the
// bytes past a frame wait in the buffer for the next one.
func TestPipelinedFramesAreEachEchoed(t *testing.T) {
	c := dialServer(t)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	first, second := frame([]byte("abc")), frame(bytes.Repeat([]byte{1}, 5000))
	c.Write(append(append([]byte{}, first...), second...))
	for _, want := range [][]byte{first, second} {
		if got, err := readFrame(c, nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("echo of a %d-byte frame: %d bytes, %v", len(want), len(got), err)
		}
	}
}
