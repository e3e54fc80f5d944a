package userschema

import (
	"encoding/json"
	"fmt"
	"math"

	"rpcarena/workers/go/internal/arena"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Reply modes of served.json, as src/rpcarena/userschema/replies.py answers them.
const (
	ReplyEcho = "echo" // the request's fields read as the reply type (by field number)
	ReplyFile = "file" // the reply paired with that request
	ReplySize = "size" // one reply filled to the asked size, whatever the request
)

// Responder answers a request message with a reply message (no cost spent).
type Responder func(request proto.Message) (proto.Message, error)

// NewResponder builds the answer of mode from pairs ([request, reply] in proto JSON).
func NewResponder(mode string, pairs [][]json.RawMessage, method arena.Method) (Responder, error) {
	switch mode {
	case ReplyEcho:
		return func(request proto.Message) (proto.Message, error) { return echoed(request, method) }, nil
	case ReplySize:
		if len(pairs) == 0 || len(pairs[0]) != 2 {
			return nil, fmt.Errorf("reply %q needs a [request, reply] pair", mode)
		}
		reply := method.NewResponse()
		if err := protojson.Unmarshal(pairs[0][1], reply); err != nil {
			return nil, fmt.Errorf("the sized reply: %v", err)
		}
		return func(proto.Message) (proto.Message, error) { return reply, nil }, nil
	case ReplyFile:
		return fileResponder(pairs, method)
	}
	return nil, fmt.Errorf("reply %q: use echo, file or size", mode)
}

// echoed reads the request's encoding as the reply type, dropping the fields the
// reply lacks (protobuf's wire compatibility); the same type answers itself.
func echoed(request proto.Message, method arena.Method) (proto.Message, error) {
	reply := method.NewResponse()
	if reply.ProtoReflect().Descriptor() == request.ProtoReflect().Descriptor() {
		return request, nil
	}
	data, err := proto.Marshal(request)
	if err != nil {
		return nil, err
	}
	return reply, proto.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(data, reply)
}

// fileResponder looks each request up by its deterministic encoding.
func fileResponder(pairs [][]json.RawMessage, method arena.Method) (Responder, error) {
	table := make(map[string]proto.Message, len(pairs))
	for i, pair := range pairs {
		if len(pair) != 2 {
			return nil, fmt.Errorf("pair %d: give [request, reply]", i+1)
		}
		request, reply := method.NewRequest(), method.NewResponse()
		if err := protojson.Unmarshal(pair[0], request); err != nil {
			return nil, fmt.Errorf("pair %d request: %v", i+1, err)
		}
		if err := protojson.Unmarshal(pair[1], reply); err != nil {
			return nil, fmt.Errorf("pair %d reply: %v", i+1, err)
		}
		table[key(request)] = reply
	}
	return func(request proto.Message) (proto.Message, error) {
		reply, ok := table[key(request)]
		if !ok {
			return nil, fmt.Errorf("a request that is none of the run's samples")
		}
		return reply, nil
	}, nil
}

// key is the deterministic encoding of m with every NaN written as one NaN: a NaN's payload
// is not its value (Go's math.NaN() has another than the quiet NaN Python, Java and Rust
// write), so a request holding "NaN" is found whichever language parsed it.
func key(m proto.Message) string {
	m = proto.Clone(m)
	canonicalNaN(m.ProtoReflect())
	data, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	return string(data)
}

var quietNaN = math.Float64frombits(0x7ff8000000000000)

// canonicalNaN rewrites every float and double NaN of m, its lists, maps and messages, as quietNaN.
func canonicalNaN(m protoreflect.Message) {
	nans := map[protoreflect.FieldDescriptor]protoreflect.Value{} // set after the range, not during it
	m.Range(func(field protoreflect.FieldDescriptor, value protoreflect.Value) bool {
		switch {
		case field.IsMap():
			entries := value.Map()
			entries.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				if field.MapValue().Message() != nil {
					canonicalNaN(v.Message())
				} else if nan, ok := canonical(field.MapValue(), v); ok {
					entries.Set(k, nan)
				}
				return true
			})
		case field.IsList():
			list := value.List()
			for i := 0; i < list.Len(); i++ {
				if field.Message() != nil {
					canonicalNaN(list.Get(i).Message())
				} else if nan, ok := canonical(field, list.Get(i)); ok {
					list.Set(i, nan)
				}
			}
		case field.Message() != nil:
			canonicalNaN(value.Message())
		default:
			if nan, ok := canonical(field, value); ok {
				nans[field] = nan
			}
		}
		return true
	})
	for field, nan := range nans {
		m.Set(field, nan)
	}
}

// canonical is quietNaN as field's kind holds it, when v is a NaN.
func canonical(field protoreflect.FieldDescriptor, v protoreflect.Value) (protoreflect.Value, bool) {
	switch field.Kind() {
	case protoreflect.DoubleKind:
		if math.IsNaN(v.Float()) {
			return protoreflect.ValueOfFloat64(quietNaN), true
		}
	case protoreflect.FloatKind:
		if math.IsNaN(v.Float()) {
			return protoreflect.ValueOfFloat32(float32(quietNaN)), true
		}
	}
	return v, false
}
