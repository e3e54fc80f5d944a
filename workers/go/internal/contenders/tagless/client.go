package tagless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

type client struct {
	user              bool // a method of the user's schema: replies compared with proto.Equal
	target            string
	index             uint16
	method            *Method
	request, response Codec
	requests          []proto.Message
	responses         []proto.Message
}

// NewClient is the tagless client (see NewClientIn).
func NewClient(spec *core.Spec) (core.Client, error) { return NewClientIn(Tagless)(spec) }

// NewClientIn makes clients of frames whose bodies are in enc.
func NewClientIn(enc Encoding) func(*core.Spec) (core.Client, error) {
	return func(spec *core.Spec) (core.Client, error) { return newClient(enc, spec) }
}

// newClient decodes the spec's canonical JSON into the generated messages, once.
func newClient(enc Encoding, spec *core.Spec) (core.Client, error) {
	if spec.Mode != core.ModeUnary {
		return nil, errors.New("tagless frames are unary calls: mode stream is not implemented")
	}
	index, m, err := specMethod(spec)
	if err != nil {
		return nil, err
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	c := &client{user: spec.User(), target: spec.Target, index: index, method: m}
	c.request, c.response = enc(m)
	unmarshal := func(b []byte, msg proto.Message) error { return protojson.Unmarshal(b, msg) }
	if c.requests, err = arena.DecodeAll(spec.Requests, m.NewRequest, unmarshal); err != nil {
		return nil, fmt.Errorf("spec requests: %v", err)
	}
	if c.responses, err = arena.DecodeAll(spec.Responses, m.NewResponse, unmarshal); err != nil {
		return nil, fmt.Errorf("spec responses: %v", err)
	}
	return c, nil
}

// specMethod is the frame kind and method the spec calls: an arena rpc, or the
// user's method (UserKind) from this build's generated code.
func specMethod(spec *core.Spec) (uint16, *Method, error) {
	if spec.User() {
		m, err := userschema.Lookup(spec.Method)
		if err != nil {
			return 0, nil, err
		}
		user, err := newUserMethod(m, nil)
		return UserKind, user, err
	}
	index, err := MethodIndex(spec.Method)
	if err != nil {
		return 0, nil, err
	}
	return uint16(index), table[index], nil
}

func (c *client) Len() int { return len(c.requests) }

func (c *client) Matches(idx int, reply any) bool {
	if c.user {
		return proto.Equal(reply.(proto.Message), c.responses[idx])
	}
	return arena.Equal(reply.(proto.Message), c.responses[idx])
}

func (c *client) Dial(ctx context.Context) (core.Conn, error) {
	var d net.Dialer
	tcp, err := d.DialContext(ctx, "tcp", c.target)
	if err != nil {
		return nil, err
	}
	return &conn{client: c, tcp: tcp, in: bufio.NewReaderSize(tcp, chunk)}, nil
}

type conn struct {
	*client
	tcp    net.Conn
	in     *bufio.Reader
	out    []byte // request frame buffer, reused
	body   []byte // reply body buffer, reused: the reply is decoded out of it
	nextID uint32
}

// Call encodes, sends, receives and decodes: all of it is the timed call.
func (c *conn) Call(ctx context.Context, idx int) (any, error) {
	deadline, _ := ctx.Deadline()
	c.tcp.SetDeadline(deadline) // zero (none) when ctx has no deadline
	c.nextID++
	out, err := c.request.Append(append(c.out[:0], make([]byte, headerSize)...), c.requests[idx])
	if err != nil {
		return nil, &core.KindError{Kind: core.KindOther, Err: err}
	}
	c.out = out
	putHeader(c.out, c.nextID, c.index)
	if _, err := c.tcp.Write(c.out); err != nil {
		return nil, err
	}
	callID, status, body, err := readFrame(c.in, c.body, MaxFrame)
	c.body = keep(body)
	switch {
	case err != nil:
		return nil, asConnection(err)
	case callID != c.nextID:
		return nil, &core.KindError{Kind: core.KindConnection,
			Err: fmt.Errorf("reply for call %d while waiting for %d", callID, c.nextID)}
	case status != StatusOK:
		return nil, &core.KindError{Kind: "status_" + statusName(status), Err: errors.New(string(body))}
	}
	reply := c.method.NewResponse()
	if err := c.response.Decode(body, reply); err != nil {
		return nil, &core.KindError{Kind: core.KindOther, Err: err}
	}
	return reply, nil
}

func (c *conn) Close() error { return c.tcp.Close() }

// asConnection: a frame over the limit or cut short ends the connection.
func asConnection(err error) error {
	var frameErr *FrameError
	if errors.As(err, &frameErr) {
		return &core.KindError{Kind: core.KindConnection, Err: err}
	}
	return err
}

func statusName(status uint16) string {
	if name, ok := statusNames[status]; ok {
		return name
	}
	return fmt.Sprint(status)
}
