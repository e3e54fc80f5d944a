package arena

import (
	"encoding/json"
	"fmt"

	pb "rpcarena/workers/go/arenapb"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Method describes one rpc of arena.Arena, read from the generated descriptor so
// no hand-written table of the 23 operations can drift from proto/arena.proto.
type Method struct {
	Name      string
	FullName  string // "/arena.Arena/Name", the gRPC path
	Streaming bool
	input     protoreflect.MessageType
	output    protoreflect.MessageType
}

// NewRequest returns an empty request message of the generated Go type.
func (m Method) NewRequest() proto.Message { return m.input.New().Interface() }

// NewResponse returns an empty response message of the generated Go type.
func (m Method) NewResponse() proto.Message { return m.output.New().Interface() }

// LookupMethod finds an rpc of arena.Arena by its name ("Invert").
func LookupMethod(name string) (Method, error) {
	svc := pb.File_arena_proto.Services().ByName("Arena")
	md := svc.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return Method{}, fmt.Errorf("unknown method %q: not an rpc of arena.Arena in proto/arena.proto", name)
	}
	in, errIn := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	out, errOut := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if errIn != nil || errOut != nil {
		return Method{}, fmt.Errorf("method %q: generated types missing; rerun gen.sh", name)
	}
	return Method{
		Name:      name,
		FullName:  fmt.Sprintf("/%s/%s", svc.FullName(), name),
		Streaming: md.IsStreamingClient() || md.IsStreamingServer(),
		input:     in,
		output:    out,
	}, nil
}

// DecodeAll decodes a spec's canonical JSON messages (requests or responses)
// with a contender's own decoder, once, before any call.
func DecodeAll(raw []json.RawMessage, newMessage func() proto.Message,
	decode func([]byte, proto.Message) error) ([]proto.Message, error) {
	messages := make([]proto.Message, len(raw))
	for i, r := range raw {
		messages[i] = newMessage()
		if err := decode(r, messages[i]); err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
	}
	return messages, nil
}
