package grpcgo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

type client struct {
	user      bool // a method of the user's schema: replies compared with proto.Equal
	target    string
	method    arena.Method
	stream    bool
	requests  []proto.Message
	responses []proto.Message
	uploads   [][]proto.Message // a client stream's calls: the requests each sends
	followed  [][]proto.Message // a server stream's calls: the replies each expects
}

// NewClient decodes the spec's canonical JSON into the generated messages.
func NewClient(spec *core.Spec) (core.Client, error) {
	method, err := userschema.SpecMethod(spec)
	if err != nil {
		return nil, err
	}
	if spec.Mode != modeOf(method) {
		return nil, fmt.Errorf("method %s needs mode %q", method.Name, modeOf(method))
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	c := &client{user: spec.User(), target: spec.Target, method: method, stream: spec.Mode == core.ModeStream}
	if err := c.decode(spec); err != nil {
		return nil, err
	}
	return c, nil
}

// decode reads the spec's requests and replies into messages: a client
// stream's requests and a server stream's replies are lists, one per call.
func (c *client) decode(spec *core.Spec) (err error) {
	m := c.method
	if c.requests, c.uploads, err = decodeSide(spec.Requests, m.NewRequest, m.OneWay() == "client"); err != nil {
		return fmt.Errorf("spec requests: %v", err)
	}
	if c.responses, c.followed, err = decodeSide(spec.Responses, m.NewResponse, m.OneWay() == "server"); err != nil {
		return fmt.Errorf("spec responses: %v", err)
	}
	return nil
}

// protoUnmarshal reads canonical JSON (int64 as numbers or strings).
func protoUnmarshal(data []byte, m proto.Message) error { return protojson.Unmarshal(data, m) }

func (c *client) Len() int { return max(len(c.requests), len(c.uploads)) }

// Multiplexes: a channel takes many unary calls at once; a kept-open stream answers one caller.
func (c *client) Multiplexes() bool { return !c.stream }

func (c *client) Matches(idx int, reply any) bool {
	if s, ok := reply.(*streamed); ok && c.followed != nil {
		return equalLists(s.replies, c.followed[idx])
	} else if ok { // a client stream's one reply
		return len(s.replies) == 1 && proto.Equal(s.replies[0], c.responses[idx])
	}
	if c.user { // any schema: maps too, exactly as protobuf compares
		return proto.Equal(reply.(proto.Message), c.responses[idx])
	}
	return arena.Equal(reply.(proto.Message), c.responses[idx])
}

// Dial opens this client's own channel and waits until it is connected, so
// connection setup is not part of the first measured call.
func (c *client) Dial(ctx context.Context) (core.Conn, error) {
	cc, err := DialReady(ctx, c.target)
	if err != nil {
		return nil, err
	}
	if c.stream {
		return openStream(cc, c)
	}
	if c.method.OneWay() != "" {
		return &oneWayConn{unaryConn{cc: cc, client: c}}, nil
	}
	return &unaryConn{cc: cc, client: c}, nil
}

// DialReady opens a channel and waits until it is connected: plaintext, unless
// opts give transport credentials (they come after the plaintext default, and
// the last option given wins).
func DialReady(ctx context.Context, target string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	cc, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, cc); err != nil {
		cc.Close()
		return nil, err
	}
	return cc, nil
}

func waitReady(ctx context.Context, cc *grpc.ClientConn) error {
	cc.Connect()
	for {
		switch state := cc.GetState(); state {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return &core.KindError{Kind: core.KindConnection, Err: lastError(ctx, cc, state)}
		default:
			if !cc.WaitForStateChange(ctx, state) {
				return ctx.Err()
			}
		}
	}
}

// lastError is why the channel failed (a wrong CA, a refused client certificate,
// a closed port): the state alone says only TRANSIENT_FAILURE. grpc-go keeps the
// last connection error in its picker, and a fail-fast stream returns it without
// sending anything.
func lastError(ctx context.Context, cc *grpc.ClientConn, state connectivity.State) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	desc := &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}
	if _, err := cc.NewStream(ctx, desc, "/grpc.health.v1.Health/Watch"); err != nil {
		if st, ok := status.FromError(err); ok && st.Message() != "" {
			return errors.New(unquote(strings.TrimPrefix(st.Message(), "connection error: desc = ")))
		}
	}
	return errors.New("grpc channel " + state.String())
}

func unquote(text string) string {
	if plain, err := strconv.Unquote(text); err == nil {
		return plain
	}
	return text
}

type unaryConn struct {
	cc     *grpc.ClientConn
	client *client
}

func (u *unaryConn) Call(ctx context.Context, idx int) (any, error) {
	m := u.client.method
	reply := m.NewResponse()
	// Invoke is what every generated stub method calls; one path serves all 23 rpcs.
	if err := u.cc.Invoke(ctx, m.FullName, u.client.requests[idx], reply); err != nil {
		return nil, Translate(err)
	}
	return reply, nil
}

func (u *unaryConn) Close() error { return u.cc.Close() }
