package tcpraw

import (
	"encoding/binary"
	"fmt"
	"io"
)

// maxFrame is the contract's limit; a larger frame closes the connection.
const maxFrame = 64 << 20

// frame is a 4-byte big-endian length followed by the payload.
func frame(payload []byte) []byte {
	header := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(payload)), uint32(len(payload)))
	return append(header, payload...)
}

// readFrame reads one whole frame (header included) into buf, growing it.
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
		return buf, fmt.Errorf("frame of %d bytes is over the 64 MiB limit", n)
	}
	if cap(buf) < 4+int(n) {
		buf = append(buf[:4], make([]byte, n)...)
	}
	buf = buf[:4+n]
	_, err := io.ReadFull(r, buf[4:])
	return buf, err
}
