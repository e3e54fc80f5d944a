package connectgo

import (
	"context"
	"fmt"
	"net/http"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/userschema"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// codec is what a client sends: protobuf's binary form, or its JSON mapping.
type codec int

const (
	codecProto codec = iota
	codecJSON
)

type client struct {
	user      bool // a method of the user's schema: replies compared with proto.Equal
	base      string
	method    arena.Method
	schema    protoreflect.MethodDescriptor
	codec     codec
	requests  []proto.Message
	responses []proto.Message
}

// NewClient decodes the spec's canonical JSON into the method's generated
// messages, once. Connect over HTTP/1.1 is unary here: a stream is an error.
func NewClient(spec *core.Spec, codec codec) (core.Client, error) {
	method, err := userschema.SpecMethod(spec)
	if err != nil {
		return nil, err
	}
	if method.Streaming || spec.Mode != core.ModeUnary {
		return nil, fmt.Errorf("%s calls unary methods only: Connect carries a bidirectional stream over HTTP/2, not %s",
			spec.Contender, method.Name)
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	schema, err := descriptorOf(method)
	if err != nil {
		return nil, err
	}
	c := &client{user: spec.User(), base: "http://" + spec.Target, method: method, schema: schema, codec: codec}
	if c.requests, c.responses, err = arena.DecodePairs(spec.Requests, spec.Responses, method); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *client) Len() int { return len(c.requests) }

func (c *client) Matches(idx int, reply any) bool {
	if c.user { // any schema: maps too, exactly as protobuf compares
		return proto.Equal(reply.(proto.Message), c.responses[idx])
	}
	return arena.Equal(reply.(proto.Message), c.responses[idx])
}

// Dial gives the client its own transport, limited to one keep-alive HTTP/1.1
// connection, and connect's client of the method over it.
func (c *client) Dial(context.Context) (core.Conn, error) {
	transport := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}
	opts := []connect.ClientOption{connect.WithSchema(c.schema), connect.WithResponseInitializer(initializer(c.method.NewResponse))}
	if c.codec == codecJSON {
		opts = append(opts, connect.WithProtoJSON())
	}
	call := connect.NewClient[message, message](&http.Client{Transport: transport}, c.base+c.method.FullName, opts...)
	return &conn{call: call, transport: transport, requests: c.requests}, nil
}

type conn struct {
	call      *connect.Client[message, message]
	transport *http.Transport
	requests  []proto.Message
}

func (c *conn) Call(ctx context.Context, idx int) (any, error) {
	reply, err := c.call.CallUnary(ctx, connect.NewRequest(&message{c.requests[idx]}))
	if err != nil {
		return nil, translate(err)
	}
	return reply.Msg.Message, nil
}

func (c *conn) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}
