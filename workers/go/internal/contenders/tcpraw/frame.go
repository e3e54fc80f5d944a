package tcpraw

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"rpcarena/workers/go/internal/limits"
)

const (
	// maxFrame is the contract's limit; a larger frame closes the connection.
	maxFrame = limits.MaxRequestBytes
	// chunk is the most a frame's buffer grows by ahead of the bytes that arrive.
	chunk = 64 << 10
	// readBuffer is each connection's read buffer: a frame up to this size,
	// header and payload, comes in one read.
	readBuffer = 64 << 10
)

// frame is a 4-byte big-endian length followed by the payload.
func frame(payload []byte) []byte {
	header := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), uint32(len(payload)))
	return append(header, payload...)
}

// readFrame reads one whole frame (header included) into buf, reused when large
// enough. A header's length is a claim, not bytes: the buffer grows only as the
// payload really arrives (at most doubling), so a lying header costs nothing.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	if cap(buf) < 4 {
		buf = make([]byte, 4, 4096)
	}
	buf = buf[:4]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	n := binary.BigEndian.Uint32(buf)
	if n > maxFrame {
		return buf, fmt.Errorf("frame of %d bytes is over the %d-byte limit", n, maxFrame)
	}
	size := 4 + int(n)
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(size-len(buf), max(len(buf), chunk)))
		}
		got, err := io.ReadFull(r, buf[len(buf):min(size, cap(buf))])
		buf = buf[:len(buf)+got]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}
