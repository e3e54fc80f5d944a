package tagless

import (
	"encoding/binary"
	"errors"
	"fmt"

	"rpcarena/workers/go/internal/arena"
)

// maxVarint is the length of the longest 64-bit LEB128 varint.
const maxVarint = 10

// DecodeError is a body that is not a tagless encoding of the expected message:
// the server answers it with BAD_REQUEST, the client counts it as "other".
type DecodeError struct{ msg string }

func (e *DecodeError) Error() string { return e.msg }

func decodeErrorf(format string, args ...any) error {
	return &DecodeError{msg: fmt.Sprintf(format, args...)}
}

var errVarint = errors.New("varint")

// readVarint is (value, next offset); cut short, longer than 10 bytes or over
// 64 bits is an error.
func readVarint(buf []byte, off int) (uint64, int, error) {
	var value uint64
	for i, shift := off, uint(0); i < len(buf) && i < off+maxVarint; i, shift = i+1, shift+7 {
		b := buf[i]
		if i == off+maxVarint-1 && b > 1 {
			return 0, 0, decodeErrorf("a varint at offset %d overflows 64 bits", off)
		}
		value |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return value, i + 1, nil
		}
	}
	return 0, 0, decodeErrorf("a varint at offset %d is cut short or longer than %d bytes", off, maxVarint)
}

// readLength reads a length or count: no length can exceed the buffer it came in.
func readLength(buf []byte, off int) (int, int, error) {
	size, next, err := readVarint(buf, off)
	if err != nil {
		return 0, 0, err
	}
	if size > uint64(len(buf)) {
		return 0, 0, decodeErrorf("a length of %d exceeds the %d-byte buffer", size, len(buf))
	}
	return int(size), next, nil
}

// readCount reads a repeated field's count: within the buffer, and not over the
// contract's cap on any count a peer announces (an empty string is one byte on
// the wire and a 16-byte header in a slice).
func readCount(buf []byte, off int, what string) (int, int, error) {
	count, next, err := readLength(buf, off)
	if err == nil && count > arena.MaxCount {
		return 0, 0, decodeErrorf("%d %s are over the cap of %d", count, what, arena.MaxCount)
	}
	return count, next, err
}

// remaining checks that need bytes are present at off, before anything is allocated.
func remaining(buf []byte, off, need int, what string) error {
	if need > len(buf)-off {
		return decodeErrorf("%s needs %d bytes at offset %d, only %d left", what, need, off, len(buf)-off)
	}
	return nil
}

func appendVarint(buf []byte, v uint64) []byte { return binary.AppendUvarint(buf, v) }

func zigzag(n int64) uint64   { return uint64(n<<1) ^ uint64(n>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
