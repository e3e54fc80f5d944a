package tagless

import (
	"fmt"
	"sync"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MessageCodec is the tagless encoder and decoder of one message type, built once
// from its descriptor (as src/rpcarena/codec/tagless.py builds its steps): every
// field in schema order, no tags. It reads and writes any proto.Message of that
// type, the generated Go structs included, through protoreflect.
type MessageCodec struct {
	Desc    protoreflect.MessageDescriptor
	steps   []step
	whole   int // byte size when the message is one packed struct of fixed scalars, else -1
	minSize int // fewest bytes an encoding can take (bounds repeated counts)
	direct  *layout
}

// step encodes or decodes one field of a message.
type step interface {
	encode(buf []byte, m protoreflect.Message) []byte
	decode(buf []byte, off int, m protoreflect.Message) (int, error)
}

var (
	codecsMu sync.Mutex
	codecs   = map[protoreflect.FullName]*MessageCodec{}
)

// CodecOf is the codec of a message type, built on first use and shared after.
func CodecOf(md protoreflect.MessageDescriptor) (*MessageCodec, error) {
	codecsMu.Lock()
	defer codecsMu.Unlock()
	return build(md, map[protoreflect.FullName]bool{})
}

func build(md protoreflect.MessageDescriptor, building map[protoreflect.FullName]bool) (*MessageCodec, error) {
	if c, ok := codecs[md.FullName()]; ok {
		return c, nil
	}
	if building[md.FullName()] {
		return nil, fmt.Errorf("%s contains itself: a tagless encoding has no end", md.FullName())
	}
	building[md.FullName()] = true
	c := &MessageCodec{Desc: md, whole: wholeSize(md), direct: layoutOf(md)}
	fields := md.Fields()
	for i := range fields.Len() {
		s, size, err := newStep(fields.Get(i), c.direct, i, c.whole >= 0, building)
		if err != nil {
			return nil, err
		}
		c.steps, c.minSize = append(c.steps, s), c.minSize+size
	}
	codecs[md.FullName()] = c
	return c, nil
}

// wholeSize is the size of a message made only of non-repeated fixed-size
// scalars (LargeData*, Vector3, Int64Msg: int64 is 8 fixed bytes there), else -1.
func wholeSize(md protoreflect.MessageDescriptor) int {
	fields := md.Fields()
	size := 0
	for i := range fields.Len() {
		fd := fields.Get(i)
		sc, ok := scalars[fd.Kind()]
		if !ok || fd.IsList() || fd.IsMap() {
			return -1
		}
		size += sc.width
	}
	if fields.Len() == 0 {
		return -1 // Empty: no fields, no bytes, through the ordinary (empty) steps
	}
	return size
}

// newStep is the step of one field and the fewest bytes it takes.
func newStep(fd protoreflect.FieldDescriptor, owner *layout, index int, flat bool, building map[protoreflect.FullName]bool) (step, int, error) {
	if fd.IsMap() {
		return nil, 0, fmt.Errorf("map field %s has no tagless encoding: use a repeated message", fd.FullName())
	}
	kind := fd.Kind()
	switch {
	case kind == protoreflect.MessageKind:
		nested, err := build(fd.Message(), building)
		if err != nil {
			return nil, 0, err
		}
		if fd.IsList() {
			return repeatedNested{fd, nested, max(nested.minSize, 1)}, 1, nil
		}
		return nestedField{fd, nested}, nested.minSize, nil
	case kind == protoreflect.StringKind || kind == protoreflect.BytesKind:
		if fd.IsList() {
			return repeatedText{fd}, 1, nil
		}
		return textField{fd}, 1, nil
	case (kind == protoreflect.Int64Kind || kind == protoreflect.Sint64Kind) && !fd.IsList() && !flat:
		return zigzagField{fd}, 1, nil
	}
	sc, ok := scalars[kind]
	if !ok {
		return nil, 0, fmt.Errorf("field %s has a type tagless does not encode (%v)", fd.FullName(), kind)
	}
	if fd.IsList() {
		f := repeatedFixed{fd: fd, sc: sc, owner: owner}
		if owner != nil {
			f.sf = owner.fields[index]
		}
		return f, 1, nil
	}
	return fixedField{fd, sc}, sc.width, nil
}

// Encode appends the encoding of m to buf.
func (c *MessageCodec) Encode(buf []byte, m proto.Message) []byte {
	return c.encode(buf, m.ProtoReflect())
}

func (c *MessageCodec) encode(buf []byte, m protoreflect.Message) []byte {
	if c.whole > 0 {
		buf = grow(buf, c.whole)
		if base := c.direct.base(m); base != nil && c.direct.compact {
			return append(buf, raw(unsafe.Add(base, c.direct.first), c.whole)...)
		}
	}
	for _, s := range c.steps {
		buf = s.encode(buf, m)
	}
	return buf
}

// Decode fills m (fresh, of this codec's type) from a whole buffer: a
// DecodeError unless buf is exactly one encoding. Every length and count is
// checked against the bytes present before anything is allocated.
func (c *MessageCodec) Decode(buf []byte, m proto.Message) error {
	if c.whole >= 0 && len(buf) != c.whole {
		return decodeErrorf("%s is %d bytes, got %d", c.Desc.Name(), c.whole, len(buf))
	}
	off, err := c.decode(buf, 0, m.ProtoReflect())
	if err == nil && off != len(buf) {
		err = decodeErrorf("%d trailing bytes after %s", len(buf)-off, c.Desc.Name())
	}
	return err
}

func (c *MessageCodec) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	if c.whole >= 0 {
		if err := remaining(buf, off, c.whole, string(c.Desc.Name())); err != nil {
			return 0, err
		}
		if base := c.direct.base(m); base != nil && c.direct.compact {
			setRaw(unsafe.Add(base, c.direct.first), buf[off:off+c.whole], false)
			return off + c.whole, nil
		}
	}
	var err error
	for _, s := range c.steps {
		if off, err = s.decode(buf, off, m); err != nil {
			return 0, err
		}
	}
	return off, nil
}

// grow makes room for n more bytes at once (one allocation for LargeData8192).
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) >= n {
		return buf
	}
	out := make([]byte, len(buf), len(buf)+n)
	copy(out, buf)
	return out
}
