// Package core is what every contender plugs into: the contender description,
// the client/connection interfaces the drive loop calls, the spec and result
// documents of the worker contract, and error kinds.
package core

import (
	"context"
	"net"
	"time"
)

// Contender is one RPC mechanism of this worker: a server and a client driver.
type Contender struct {
	ID       string // what users type, e.g. "grpc-go"
	Protocol string // wire mapping of the contract: "grpc", "http-json", "tcp-raw"
	Tool     Tool
	// NewServer prepares a server; an error means the options cannot work
	// (a Redis URL that does not parse or answer).
	NewServer func(opts ServerOptions) (Server, error)
	// NewClient prepares a client for a spec: requests and expected responses are
	// decoded here, once, before any call. An error means the spec cannot run.
	NewClient func(spec *Spec) (Client, error)
}

// ServerOptions are what `serve` passes on beyond the address.
type ServerOptions struct {
	// Redis is the URL of the predictions seed's Redis ("" when not given):
	// servers that know predictions.Predictions serve it only then.
	Redis string
	// Schema is served.json of a user's method ("" when not given): the
	// contenders that serve a user's schema add that method (internal/userschema).
	Schema string
}

// Server serves one contender on a listener until Stop.
type Server interface {
	Serve(lis net.Listener) error
	Stop()
}

// Client is a contender's prepared client for one spec.
type Client interface {
	// Dial opens one client's own connection (gRPC channel, keep-alive HTTP
	// connection, TCP socket, or stream).
	Dial(ctx context.Context) (Conn, error)
	// Matches reports whether reply equals the expected response number idx.
	Matches(idx int, reply any) bool
	// Len is the number of prepared requests.
	Len() int
}

// Multiplexer is a client whose connections take many calls in flight at once
// (a gRPC channel): with the spec's connections, clients share them round-robin
// instead of borrowing one at a time from a pool.
type Multiplexer interface {
	Multiplexes() bool
}

// Conn is one client's connection. Call sends request idx and returns the decoded
// reply; the drive loop times it, and checks the reply outside the timing.
type Conn interface {
	Call(ctx context.Context, idx int) (any, error)
	Close() error
}

// Streamed is a reply of several messages (a gRPC stream): the drive loop also
// records the latency of each message.
type Streamed interface {
	MessageLatencies() []time.Duration
}

// Explainer is a client that can say why a reply is not the expected one:
// the result's wrong_answer example is then that, not the whole reply.
type Explainer interface {
	Explain(idx int, reply any) string
}

// Tool names the library measured, for the result document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Runtime string `json:"runtime"`
}
