package tagless

import (
	"reflect"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The direct path: where the wire form of fixed scalars is their in-memory form
// (a little-endian host), the fields of a generated Go struct are read and
// written in place at offsets found once from the descriptor and the struct's
// protobuf tags, instead of one protoreflect Get/Set per field (2.3 ms to decode
// LargeData8192 that way). A flat message whose fields lie back to back in the
// struct is then one copy, as the Python codec's one struct.Struct is one pack.
// dynamicpb messages, and anything the check below does not recognise, take the
// protoreflect path.

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// goKinds is the Go kind a generated struct holds each fixed scalar in.
var goKinds = map[protoreflect.Kind]reflect.Kind{
	protoreflect.Int32Kind: reflect.Int32, protoreflect.Sint32Kind: reflect.Int32,
	protoreflect.Sfixed32Kind: reflect.Int32, protoreflect.EnumKind: reflect.Int32,
	protoreflect.Uint32Kind: reflect.Uint32, protoreflect.Fixed32Kind: reflect.Uint32,
	protoreflect.Int64Kind: reflect.Int64, protoreflect.Sint64Kind: reflect.Int64,
	protoreflect.Sfixed64Kind: reflect.Int64, protoreflect.Uint64Kind: reflect.Uint64,
	protoreflect.Fixed64Kind: reflect.Uint64, protoreflect.DoubleKind: reflect.Float64,
	protoreflect.FloatKind: reflect.Float32, protoreflect.BoolKind: reflect.Bool,
}

// layout is where a generated struct holds a message's fields (nil entries: not in place).
type layout struct {
	goType  protoreflect.MessageType
	fields  []*reflect.StructField // per field in schema order
	compact bool                   // a flat message stored back to back, no bool: one copy
	first   uintptr
}

func layoutOf(md protoreflect.MessageDescriptor) *layout {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if !littleEndian || err != nil {
		return nil
	}
	t := reflect.TypeOf(mt.Zero().Interface())
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	byName := map[string]*reflect.StructField{}
	for i := range t.Elem().NumField() {
		sf := t.Elem().Field(i)
		byName[tagName(sf.Tag.Get("protobuf"))] = &sf
	}
	l := &layout{goType: mt, compact: true}
	fields, next := md.Fields(), uintptr(0)
	for i := range fields.Len() {
		fd := fields.Get(i)
		sf := byName[string(fd.Name())]
		if sf != nil && !fits(fd, sf.Type) {
			sf = nil
		}
		l.fields = append(l.fields, sf)
		if sf == nil || fd.IsList() || fd.Kind() == protoreflect.BoolKind || (i > 0 && sf.Offset != next) {
			l.compact = false
		} else if i == 0 {
			l.first = sf.Offset
		}
		if sf != nil {
			next = sf.Offset + sf.Type.Size()
		}
	}
	return l
}

func tagName(tag string) string {
	for _, part := range strings.Split(tag, ",") {
		if name, ok := strings.CutPrefix(part, "name="); ok {
			return name
		}
	}
	return ""
}

// fits: the Go field holds the proto field as a plain scalar or a slice of them.
func fits(fd protoreflect.FieldDescriptor, t reflect.Type) bool {
	want, ok := goKinds[fd.Kind()]
	if fd.IsList() {
		return ok && t.Kind() == reflect.Slice && t.Elem().Kind() == want
	}
	return ok && t.Kind() == want
}

// base is the struct behind m when it has this layout's generated type.
func (l *layout) base(m protoreflect.Message) unsafe.Pointer {
	if l == nil || !m.IsValid() || m.Type() != l.goType {
		return nil // unset (read-only empty) or dynamic messages
	}
	return reflect.ValueOf(m.Interface()).UnsafePointer()
}

// raw is the in-memory bytes of a fixed scalar, equal to its wire form here.
func raw(p unsafe.Pointer, width int) []byte { return unsafe.Slice((*byte)(p), width) }

// setRaw stores wire bytes in place; a bool byte becomes exactly 0 or 1.
func setRaw(p unsafe.Pointer, b []byte, isBool bool) {
	n := copy(raw(p, len(b)), b)
	if isBool {
		for i := range n {
			*(*bool)(unsafe.Add(p, i)) = b[i] != 0
		}
	}
}

// directSlice is the slice field at offset of the struct at base.
func directSlice(base unsafe.Pointer, sf *reflect.StructField) reflect.Value {
	return reflect.NewAt(sf.Type, unsafe.Add(base, sf.Offset)).Elem()
}
