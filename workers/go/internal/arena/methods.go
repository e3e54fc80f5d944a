package arena

import (
	"encoding/json"
	"fmt"

	pb "rpcarena/workers/go/arenapb"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Method describes one rpc of arena.Arena or predictions.Predictions, read from
// the generated descriptors so no hand-written table of the operations can drift
// from proto/.
type Method struct {
	Name      string
	Service   string // "arena.Arena"
	FullName  string // "/arena.Arena/Name", the gRPC path
	Streaming bool
	// ClientStreams, ServerStreams: which ways the method streams (both: bidirectional).
	ClientStreams, ServerStreams bool
	input                        protoreflect.MessageType
	output                       protoreflect.MessageType
}

// OneWay is "client" or "server" for a stream one way only (a stream a call),
// "" for unary and bidirectional methods.
func (m Method) OneWay() string {
	switch {
	case m.ClientStreams && !m.ServerStreams:
		return "client"
	case m.ServerStreams && !m.ClientStreams:
		return "server"
	}
	return ""
}

// NewRequest returns an empty request message of the generated Go type.
func (m Method) NewRequest() proto.Message { return m.input.New().Interface() }

// NewResponse returns an empty response message of the generated Go type.
func (m Method) NewResponse() proto.Message { return m.output.New().Interface() }

// LookupMethod finds an rpc by its name ("Invert", "GetPredictions").
func LookupMethod(name string) (Method, error) {
	md := findMethod(protoreflect.Name(name))
	if md == nil {
		return Method{}, fmt.Errorf("unknown method %q: not an rpc of arena.Arena or predictions.Predictions in proto/", name)
	}
	return MethodOf(md)
}

// MethodOf is the rpc md with its generated Go types, found in
// protoregistry.GlobalTypes (a user's schema: internal/userschema); a type the
// worker was not built with is an error.
func MethodOf(md protoreflect.MethodDescriptor) (Method, error) {
	in, errIn := protoregistry.GlobalTypes.FindMessageByName(md.Input().FullName())
	out, errOut := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if errIn != nil || errOut != nil {
		return Method{}, fmt.Errorf("method %q: generated types missing; rerun gen.sh", md.Name())
	}
	service := md.Parent().FullName()
	return Method{
		Name:      string(md.Name()),
		Service:   string(service),
		FullName:  fmt.Sprintf("/%s/%s", service, md.Name()),
		Streaming: md.IsStreamingClient() || md.IsStreamingServer(),
		input:     in,
		output:    out,

		ClientStreams: md.IsStreamingClient(),
		ServerStreams: md.IsStreamingServer(),
	}, nil
}

// findMethod looks through the services the worker serves; their rpc names differ.
func findMethod(name protoreflect.Name) protoreflect.MethodDescriptor {
	for _, svc := range []protoreflect.ServiceDescriptor{
		pb.File_arena_proto.Services().ByName("Arena"),
		predictionspb.File_predictions_proto.Services().ByName("Predictions"),
	} {
		if md := svc.Methods().ByName(name); md != nil {
			return md
		}
	}
	return nil
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

// DecodePairs decodes a spec's requests and expected responses for method,
// both in proto JSON (int64 as numbers or strings), once, before any call.
func DecodePairs(requests, responses []json.RawMessage, method Method) (in, out []proto.Message, err error) {
	if in, err = DecodeAll(requests, method.NewRequest, protojson.Unmarshal); err != nil {
		return nil, nil, fmt.Errorf("spec requests: %v", err)
	}
	if out, err = DecodeAll(responses, method.NewResponse, protojson.Unmarshal); err != nil {
		return nil, nil, fmt.Errorf("spec responses: %v", err)
	}
	return in, out, nil
}
