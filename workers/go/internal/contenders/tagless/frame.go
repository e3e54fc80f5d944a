package tagless

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The frame of src/rpcarena/codec/frames.py: a 10-byte little-endian header
// (body length u32, call id u32, kind u16) and the body. On a request the kind
// is the method's index, on a reply the status (0 ok, else a UTF-8 message).
const (
	headerSize = 10
	MaxFrame   = 64 << 20 // a longer frame closes the connection before anything is allocated
	chunk      = 64 << 10 // a body is read (and its buffer grown) this much at a time at first
)

// Reply statuses.
const (
	StatusOK            = 0
	StatusBadRequest    = 1
	StatusUnknownMethod = 2
	StatusInternal      = 3
)

var statusNames = map[uint16]string{StatusBadRequest: "bad_request", StatusUnknownMethod: "unknown_method",
	StatusInternal: "internal"}

// FrameError is a frame over the limit or cut short: the connection is closed.
type FrameError struct{ msg string }

func (e *FrameError) Error() string { return e.msg }

// putHeader fills the header reserved at the start of frame.
func putHeader(frame []byte, callID uint32, kind uint16) {
	le.PutUint32(frame, uint32(len(frame)-headerSize))
	le.PutUint32(frame[4:], callID)
	le.PutUint16(frame[8:], kind)
}

// readFrame reads one frame's header and body, the body into buf (reused when
// large enough). A header's length is a claim, not bytes: the buffer grows only
// as the body really arrives, so a lying header cannot make it allocate.
func readFrame(r *bufio.Reader, buf []byte, maxFrame int) (callID uint32, kind uint16, body []byte, err error) {
	var header [headerSize]byte
	if n, err := io.ReadFull(r, header[:]); err != nil {
		if n > 0 {
			err = &FrameError{"truncated header"}
		}
		return 0, 0, buf, err
	}
	size := int(binary.LittleEndian.Uint32(header[:]))
	callID, kind = le.Uint32(header[4:]), le.Uint16(header[8:])
	if size > maxFrame {
		return 0, 0, buf, &FrameError{fmt.Sprintf("frame of %d bytes exceeds the %d-byte limit", size, maxFrame)}
	}
	body, err = readBody(r, buf[:0], size)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = &FrameError{fmt.Sprintf("frame cut short: %d of %d bytes", len(body), size)}
	}
	return callID, kind, body, err
}

func readBody(r io.Reader, buf []byte, size int) ([]byte, error) {
	if cap(buf) >= size {
		n, err := io.ReadFull(r, buf[:size])
		return buf[:n], err
	}
	for len(buf) < size {
		step := min(size-len(buf), max(len(buf), chunk))
		buf = grow(buf, step)
		n, err := io.ReadFull(r, buf[len(buf):len(buf)+step])
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// wholeFrameBuffered reports whether the next frame is already read in, so a
// server answering pipelined frames can hold its replies and write them together.
func wholeFrameBuffered(r *bufio.Reader) bool {
	if r.Buffered() < headerSize {
		return false // Peek would wait for more bytes
	}
	header, _ := r.Peek(headerSize)
	return r.Buffered()-headerSize >= int(le.Uint32(header))
}
