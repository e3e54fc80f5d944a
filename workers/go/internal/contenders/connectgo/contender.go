// Package connectgo is the connect-go contender: the arena.Arena service and a
// user's unary method over the Connect protocol (plain HTTP/1.1 POSTs, one
// message a body) with connectrpc.com/connect on both sides, in protobuf's
// binary form (connect-go) or its JSON mapping (connect-go-json). The server
// is one for both, as connect-go's handlers take either codec; the client
// picks the codec, so the two contenders differ in what crosses the wire.
package connectgo

import (
	"runtime"

	"rpcarena/workers/go/internal/core"

	"connectrpc.com/connect"
)

// Contender is connect-go's entry in the registry: protobuf binary bodies.
var Contender = core.Contender{
	ID:        "connect-go",
	Protocol:  "connect-proto",
	Tool:      core.Tool{Name: "connect-go", Version: connect.Version, Runtime: runtime.Version()},
	NewServer: NewServer,
	NewClient: func(spec *core.Spec) (core.Client, error) { return NewClient(spec, codecProto) },
}

// JSON is connect-go-json's entry: the same server, a client sending proto JSON.
var JSON = core.Contender{
	ID:        "connect-go-json",
	Protocol:  "connect-json",
	Tool:      core.Tool{Name: "connect-go (JSON)", Version: connect.Version, Runtime: runtime.Version()},
	NewServer: NewServer,
	NewClient: func(spec *core.Spec) (core.Client, error) { return NewClient(spec, codecJSON) },
}
