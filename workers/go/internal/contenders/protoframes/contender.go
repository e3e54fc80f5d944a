// Package protoframes is proto-frames-go, the native twin of the Python
// proto-frames: grpc-go's generated protobuf messages carried over tagless-go's
// call-id frames and connection handling. hprpc2016 blames protobuf's tags for
// gRPC's cost; tagless-go differs from grpc-go in its transport too. Against
// tagless-go this contender differs in the encoding alone, against grpc-go in
// the transport alone. It speaks byte for byte what
// src/rpcarena/contenders/proto_frames.py speaks.
package protoframes

import (
	"runtime"

	"rpcarena/workers/go/internal/contenders/tagless"
	"rpcarena/workers/go/internal/core"

	"google.golang.org/protobuf/proto"
)

// Contender is proto-frames-go's entry in the registry.
var Contender = core.Contender{
	ID:        "proto-frames-go",
	Protocol:  "proto-frames",
	Tool:      core.Tool{Name: "proto-frames-go (google.golang.org/protobuf)", Version: runtime.Version(), Runtime: runtime.Version()},
	NewServer: func(core.ServerOptions) (core.Server, error) { return tagless.NewServerIn(Protobuf), nil },
	NewClient: tagless.NewClientIn(Protobuf),
}

// Protobuf is the encoding of every method: the message's protobuf wire form, whole.
func Protobuf(*tagless.Method) (request, response tagless.Codec) { return codec{}, codec{} }

type codec struct{}

func (codec) Append(out []byte, m proto.Message) ([]byte, error) {
	return proto.MarshalOptions{}.MarshalAppend(out, m)
}

func (codec) Decode(body []byte, m proto.Message) error { return proto.Unmarshal(body, m) }
