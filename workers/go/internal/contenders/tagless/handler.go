package tagless

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"

	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/proto"
)

// Handle answers one tagless request frame (see HandleIn).
func Handle(kind uint16, body []byte, out []byte, maxFrame int) (uint16, []byte) {
	return HandleIn(Tagless, kind, body, out, maxFrame)
}

// HandleIn answers one request frame whose bodies are in enc: the reply body is
// appended to out and returned with its status. A bad request is an error
// reply, never a panic.
func HandleIn(enc Encoding, kind uint16, body []byte, out []byte, maxFrame int) (uint16, []byte) {
	return handle(nil, enc, kind, body, out, maxFrame)
}

// handle is HandleIn on a server that may also serve a user's method (kind UserKind).
func handle(user *Method, enc Encoding, kind uint16, body []byte, out []byte, maxFrame int) (uint16, []byte) {
	m := methodAt(kind, user)
	if m == nil {
		return StatusUnknownMethod, append(out, "no method with index "+strconv.Itoa(int(kind))...)
	}
	request, response := enc(m)
	reply, err := m.call(context.Background(), func(req proto.Message) error {
		if err := request.Decode(body, req); err != nil {
			return badRequest{err}
		}
		return fitsFrame(req, maxFrame)
	})
	var refused *arena.Refused
	if _, ok := err.(badRequest); ok || errors.As(err, &refused) { // arena.Handler returns decode's error as is
		return StatusBadRequest, append(out, err.Error()...)
	} else if err != nil {
		return StatusInternal, append(out, err.Error()...)
	}
	if b, err := response.Append(out, reply); err == nil {
		return StatusOK, b
	} else {
		return StatusInternal, append(out, err.Error()...)
	}
}

// badRequest is a request body that does not decode; it and a request the
// operation refuses (arena.Refused) are StatusBadRequest, a request this server
// cannot run is StatusInternal.
type badRequest struct{ error }

// ServeStream answers tagless frames (see ServeStreamIn).
func ServeStream(r io.Reader, w io.Writer, maxFrame int) error {
	return ServeStreamIn(Tagless, r, w, maxFrame)
}

// ServeStreamIn answers the frames read from r on w, in order, as they come: a
// pipelining client gets its replies (each with its call id) without waiting,
// written together while whole frames are queued. It returns at the end of r
// (nil) or at the first frame over maxFrame or cut short (a FrameError: the
// caller closes the connection).
func ServeStreamIn(enc Encoding, r io.Reader, w io.Writer, maxFrame int) error {
	return serveStream(nil, enc, r, w, maxFrame)
}

func serveStream(user *Method, enc Encoding, r io.Reader, w io.Writer, maxFrame int) error {
	in := bufio.NewReaderSize(r, chunk)
	out := bufio.NewWriterSize(w, chunk)
	var body, reply []byte
	for {
		callID, kind, frame, err := readFrame(in, body, maxFrame)
		if errors.Is(err, io.EOF) {
			return out.Flush()
		} else if err != nil {
			out.Flush() // the replies before the bad frame still go out
			return err
		}
		status, b := handle(user, enc, kind, frame, append(reply[:0], make([]byte, headerSize)...), maxFrame)
		putHeader(b, callID, status)
		if _, err := out.Write(b); err != nil {
			return err
		}
		if !wholeFrameBuffered(in) {
			if err := out.Flush(); err != nil {
				return err
			}
		}
		body, reply = keep(frame), keep(b)
	}
}

// keep reuses a buffer for the next frame, unless it grew past 1 MiB: a
// connection that once carried a huge frame does not hold on to it.
func keep(b []byte) []byte {
	if cap(b) > 1<<20 {
		return nil
	}
	return b
}
