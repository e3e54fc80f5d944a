package tagless

import (
	"encoding/binary"
	"math"
	"reflect"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// scalar is a fixed-size little-endian scalar (the Python codec's struct codes).
type scalar struct {
	width int
	put   func(buf []byte, v protoreflect.Value) []byte
	get   func(b []byte) protoreflect.Value
}

var le = binary.LittleEndian

var (
	i32 = scalar{4, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint32(b, uint32(v.Int())) },
		func(b []byte) protoreflect.Value { return protoreflect.ValueOfInt32(int32(le.Uint32(b))) }}
	u32 = scalar{4, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint32(b, uint32(v.Uint())) },
		func(b []byte) protoreflect.Value { return protoreflect.ValueOfUint32(le.Uint32(b)) }}
	i64 = scalar{8, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint64(b, uint64(v.Int())) },
		func(b []byte) protoreflect.Value { return protoreflect.ValueOfInt64(int64(le.Uint64(b))) }}
	u64 = scalar{8, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint64(b, v.Uint()) },
		func(b []byte) protoreflect.Value { return protoreflect.ValueOfUint64(le.Uint64(b)) }}
	enum = scalar{4, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint32(b, uint32(v.Enum())) },
		func(b []byte) protoreflect.Value {
			return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(le.Uint32(b))))
		}}
	f64 = scalar{8, func(b []byte, v protoreflect.Value) []byte { return le.AppendUint64(b, math.Float64bits(v.Float())) },
		func(b []byte) protoreflect.Value {
			return protoreflect.ValueOfFloat64(math.Float64frombits(le.Uint64(b)))
		}}
	f32 = scalar{4, func(b []byte, v protoreflect.Value) []byte {
		return le.AppendUint32(b, math.Float32bits(float32(v.Float())))
	}, func(b []byte) protoreflect.Value {
		return protoreflect.ValueOfFloat32(math.Float32frombits(le.Uint32(b)))
	}}
	boolean = scalar{1, func(b []byte, v protoreflect.Value) []byte {
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	}, func(b []byte) protoreflect.Value { return protoreflect.ValueOfBool(b[0] != 0) }}
)

// scalars maps each fixed-size kind to its wire form, as FIXED does in Python.
var scalars = map[protoreflect.Kind]scalar{
	protoreflect.Int32Kind: i32, protoreflect.Sint32Kind: i32, protoreflect.Sfixed32Kind: i32,
	protoreflect.EnumKind: enum, protoreflect.Uint32Kind: u32, protoreflect.Fixed32Kind: u32,
	protoreflect.Int64Kind: i64, protoreflect.Sint64Kind: i64, protoreflect.Sfixed64Kind: i64,
	protoreflect.Uint64Kind: u64, protoreflect.Fixed64Kind: u64,
	protoreflect.DoubleKind: f64, protoreflect.FloatKind: f32, protoreflect.BoolKind: boolean,
}

type fixedField struct {
	fd protoreflect.FieldDescriptor
	sc scalar
}

func (f fixedField) encode(buf []byte, m protoreflect.Message) []byte {
	return f.sc.put(buf, m.Get(f.fd))
}

func (f fixedField) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	if err := remaining(buf, off, f.sc.width, string(f.fd.Name())); err != nil {
		return 0, err
	}
	m.Set(f.fd, f.sc.get(buf[off:]))
	return off + f.sc.width, nil
}

// zigzagField is an int64 outside a flat message: as few bytes as the value needs.
type zigzagField struct{ fd protoreflect.FieldDescriptor }

func (f zigzagField) encode(buf []byte, m protoreflect.Message) []byte {
	return appendVarint(buf, zigzag(m.Get(f.fd).Int()))
}

func (f zigzagField) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	raw, off, err := readVarint(buf, off)
	if err == nil {
		m.Set(f.fd, protoreflect.ValueOfInt64(unzigzag(raw)))
	}
	return off, err
}

type textField struct{ fd protoreflect.FieldDescriptor }

func (f textField) encode(buf []byte, m protoreflect.Message) []byte {
	return appendText(buf, f.fd, m.Get(f.fd))
}

func (f textField) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	v, off, err := readText(buf, off, f.fd)
	if err == nil {
		m.Set(f.fd, v)
	}
	return off, err
}

func appendText(buf []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	if fd.Kind() == protoreflect.StringKind {
		s := v.String()
		return append(appendVarint(buf, uint64(len(s))), s...)
	}
	b := v.Bytes()
	return append(appendVarint(buf, uint64(len(b))), b...)
}

// readText copies the bytes out of the frame: the connection reuses its buffer.
func readText(buf []byte, off int, fd protoreflect.FieldDescriptor) (protoreflect.Value, int, error) {
	size, off, err := readLength(buf, off)
	if err == nil {
		err = remaining(buf, off, size, "a string")
	}
	if err != nil {
		return protoreflect.Value{}, 0, err
	}
	data := buf[off : off+size]
	if fd.Kind() == protoreflect.BytesKind {
		return protoreflect.ValueOfBytes(append([]byte{}, data...)), off + size, nil
	}
	if !utf8.Valid(data) {
		return protoreflect.Value{}, 0, decodeErrorf("a string at offset %d is not valid UTF-8", off)
	}
	return protoreflect.ValueOfString(string(data)), off + size, nil
}

type nestedField struct {
	fd    protoreflect.FieldDescriptor
	codec *MessageCodec
}

// encode: an unset message field reads as an empty message, its fields at their defaults.
func (f nestedField) encode(buf []byte, m protoreflect.Message) []byte {
	return f.codec.encode(buf, m.Get(f.fd).Message())
}

func (f nestedField) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	return f.codec.decode(buf, off, m.Mutable(f.fd).Message())
}

type repeatedFixed struct {
	fd    protoreflect.FieldDescriptor
	sc    scalar
	sf    *reflect.StructField // the slice in the generated struct, nil: protoreflect only
	owner *layout
}

func (f repeatedFixed) encode(buf []byte, m protoreflect.Message) []byte {
	if base := f.base(m); base != nil {
		s := directSlice(base, f.sf)
		buf = appendVarint(buf, uint64(s.Len()))
		if s.Len() == 0 {
			return buf
		}
		return append(buf, raw(s.UnsafePointer(), s.Len()*f.sc.width)...)
	}
	list := m.Get(f.fd).List()
	n := list.Len()
	buf = grow(appendVarint(buf, uint64(n)), n*f.sc.width)
	for i := range n {
		buf = f.sc.put(buf, list.Get(i))
	}
	return buf
}

func (f repeatedFixed) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	count, off, err := readCount(buf, off, "repeated values")
	if err == nil {
		err = remaining(buf, off, count*f.sc.width, "repeated values")
	}
	if err != nil || count == 0 {
		return off, err
	}
	if base := f.base(m); base != nil {
		s := reflect.MakeSlice(f.sf.Type, count, count)
		setRaw(s.UnsafePointer(), buf[off:off+count*f.sc.width], f.fd.Kind() == protoreflect.BoolKind)
		directSlice(base, f.sf).Set(s)
		return off + count*f.sc.width, nil
	}
	list := m.Mutable(f.fd).List()
	for range count {
		list.Append(f.sc.get(buf[off:]))
		off += f.sc.width
	}
	return off, nil
}

// base is the generated struct behind m, when the field is held in place.
func (f repeatedFixed) base(m protoreflect.Message) unsafe.Pointer {
	if f.sf == nil {
		return nil
	}
	return f.owner.base(m)
}

type repeatedText struct{ fd protoreflect.FieldDescriptor }

func (f repeatedText) encode(buf []byte, m protoreflect.Message) []byte {
	list := m.Get(f.fd).List()
	buf = appendVarint(buf, uint64(list.Len()))
	for i := range list.Len() {
		buf = appendText(buf, f.fd, list.Get(i))
	}
	return buf
}

func (f repeatedText) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	count, off, err := readCount(buf, off, "repeated strings")
	if err == nil {
		err = remaining(buf, off, count, "repeated strings") // each takes a length byte at least
	}
	if err != nil || count == 0 {
		return off, err
	}
	list := m.Mutable(f.fd).List()
	for range count {
		var v protoreflect.Value
		if v, off, err = readText(buf, off, f.fd); err != nil {
			return 0, err
		}
		list.Append(v)
	}
	return off, nil
}

type repeatedNested struct {
	fd    protoreflect.FieldDescriptor
	codec *MessageCodec
	least int // an empty nested message still costs 1 byte of the count check
}

func (f repeatedNested) encode(buf []byte, m protoreflect.Message) []byte {
	list := m.Get(f.fd).List()
	buf = appendVarint(buf, uint64(list.Len()))
	for i := range list.Len() {
		buf = f.codec.encode(buf, list.Get(i).Message())
	}
	return buf
}

func (f repeatedNested) decode(buf []byte, off int, m protoreflect.Message) (int, error) {
	count, off, err := readCount(buf, off, "repeated messages")
	if err == nil {
		err = remaining(buf, off, count*f.least, "repeated messages")
	}
	if err != nil || count == 0 {
		return off, err
	}
	list := m.Mutable(f.fd).List()
	for range count {
		item := list.NewElement()
		if off, err = f.codec.decode(buf, off, item.Message()); err != nil {
			return 0, err
		}
		list.Append(item)
	}
	return off, nil
}
