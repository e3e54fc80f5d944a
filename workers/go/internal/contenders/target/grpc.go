package target

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"rpcarena/workers/go/internal/contenders/grpcgo"
	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// grpcClient calls one method of any service, its messages dynamic (dynamicpb)
// from the descriptor set rpcarena compiled from the .proto or got by reflection.
type grpcClient struct {
	target   string
	path     string // /package.Service/Method
	method   protoreflect.MethodDescriptor
	stream   *grpc.StreamDesc // nil for a unary method
	limit    int              // reply messages per stream before the client ends it (0: the server ends it)
	status   string           // the expected status name ("OK" unless --expect-status)
	requests [][]proto.Message
	checks   [][]check
	marshal  protojson.MarshalOptions
	dial     []grpc.DialOption // TLS credentials (none: plaintext)
	metadata metadata.MD       // sent with every call (nil: none)
}

func newGrpcClient(spec *core.Spec, d description, checks [][]check) (core.Client, error) {
	method, types, err := findMethod(d.DescriptorSetB64, spec.Method)
	if err != nil {
		return nil, err
	}
	c := &grpcClient{target: spec.Target, method: method, checks: checks, limit: d.StreamMessages,
		path: "/" + spec.Method, status: "OK",
		marshal: protojson.MarshalOptions{UseProtoNames: true, Resolver: types}}
	if method.IsStreamingClient() || method.IsStreamingServer() {
		c.stream = &grpc.StreamDesc{StreamName: string(method.Name()),
			ClientStreams: method.IsStreamingClient(), ServerStreams: method.IsStreamingServer()}
	}
	if err := json.Unmarshal(orNull(d.ExpectStatus), &c.status); err != nil || c.status == "" {
		c.status = "OK"
	}
	if err := c.secure(d); err != nil {
		return nil, err
	}
	unmarshal := protojson.UnmarshalOptions{Resolver: types}
	for i, raw := range spec.Requests {
		messages, err := decodeMessages(raw, method, unmarshal)
		if err != nil {
			return nil, fmt.Errorf("requests[%d]: %v", i, err)
		}
		c.requests = append(c.requests, messages)
	}
	return c, nil
}

// secure takes the description's TLS settings and metadata.
func (c *grpcClient) secure(d description) error {
	if d.TLS != nil {
		cfg, err := d.TLS.grpcConfig()
		if err != nil {
			return err
		}
		c.dial = []grpc.DialOption{grpc.WithTransportCredentials(credentials.NewTLS(cfg))}
	}
	for _, pair := range d.Metadata {
		if len(pair) != 2 {
			return fmt.Errorf("metadata: want [key, value] pairs, got %q", pair)
		}
		c.metadata = metadata.Join(c.metadata, metadata.Pairs(pair[0], pair[1]))
	}
	return nil
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// findMethod looks `package.Service/Method` up in a base64 FileDescriptorSet.
func findMethod(b64, name string) (protoreflect.MethodDescriptor, *dynamicpb.Types, error) {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, nil, fmt.Errorf("descriptor_set_b64: %v", err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &set); err != nil {
		return nil, nil, fmt.Errorf("descriptor set: %v", err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, nil, fmt.Errorf("descriptor set: %v", err)
	}
	service, method, _ := strings.Cut(name, "/")
	found, err := files.FindDescriptorByName(protoreflect.FullName(service))
	sd, ok := found.(protoreflect.ServiceDescriptor)
	if err != nil || !ok {
		return nil, nil, fmt.Errorf("the schema has no service %s", service)
	}
	md := sd.Methods().ByName(protoreflect.Name(method))
	if md == nil {
		return nil, nil, fmt.Errorf("service %s has no method %s", service, method)
	}
	return md, dynamicpb.NewTypes(files), nil
}

// decodeMessages reads one request: a message, or for a client stream a list of messages.
func decodeMessages(raw json.RawMessage, method protoreflect.MethodDescriptor,
	unmarshal protojson.UnmarshalOptions) ([]proto.Message, error) {
	items := []json.RawMessage{raw}
	if method.IsStreamingClient() && strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, err
		}
	}
	out := make([]proto.Message, len(items))
	for i, item := range items {
		m := dynamicpb.NewMessage(method.Input())
		if err := unmarshal.Unmarshal(item, m); err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

func (c *grpcClient) Len() int { return len(c.requests) }

// Matches checks a reply (a message, or a stream's messages as a list) against the
// request's --expect-json; a reply with the expected non-OK status is nil.
func (c *grpcClient) Matches(idx int, reply any) bool {
	if c.status != "OK" {
		return reply == nil && len(c.checks[idx]) == 0
	}
	if len(c.checks[idx]) == 0 {
		return true
	}
	doc, err := c.canonical(reply)
	return err == nil && holds(doc, c.checks[idx])
}

// Explain says why a reply did not match (core.Explainer).
func (c *grpcClient) Explain(idx int, reply any) string {
	if c.status != "OK" {
		return "status OK, want " + c.status
	}
	doc, err := c.canonical(reply)
	if err != nil {
		return err.Error()
	}
	return explain(doc, c.checks[idx])
}

// canonical is the reply in proto JSON with proto field names, decoded.
func (c *grpcClient) canonical(reply any) (any, error) {
	if s, ok := reply.(*streamed); ok && !c.stream.ServerStreams && len(s.replies) == 1 {
		return c.canonical(s.replies[0]) // a client stream's one reply
	}
	if s, ok := reply.(*streamed); ok {
		list := make([]any, len(s.replies))
		for i, m := range s.replies {
			var err error
			if list[i], err = c.canonical(m); err != nil {
				return nil, err
			}
		}
		return list, nil
	}
	data, err := c.marshal.Marshal(reply.(proto.Message))
	if err != nil {
		return nil, err
	}
	return decodeJSON(data)
}

// Multiplexes: each call (a unary call or a whole stream) is a stream of the channel.
func (c *grpcClient) Multiplexes() bool { return true }

// Dial opens this client's own channel and waits until it is connected.
func (c *grpcClient) Dial(ctx context.Context) (core.Conn, error) {
	cc, err := grpcgo.DialReady(ctx, c.target, c.dial...)
	if err != nil {
		return nil, err
	}
	return &grpcConn{cc: cc, client: c}, nil
}

type grpcConn struct {
	cc     *grpc.ClientConn
	client *grpcClient
}

// Call makes one unary call, or runs one whole stream (a call is a stream).
func (g *grpcConn) Call(ctx context.Context, idx int) (any, error) {
	c := g.client
	var reply any
	var err error
	if c.metadata != nil {
		ctx = metadata.NewOutgoingContext(ctx, c.metadata)
	}
	if c.stream == nil {
		out := dynamicpb.NewMessage(c.method.Output())
		err, reply = g.cc.Invoke(ctx, c.path, c.requests[idx][0], out), out
	} else {
		reply, err = g.runStream(ctx, c.requests[idx])
	}
	if err != nil && c.status != "OK" {
		if st, ok := status.FromError(err); ok && strings.EqualFold(grpcgo.StatusName(st.Code()), c.status) {
			return nil, nil // the status asked for with --expect-status: an answer
		}
	}
	return reply, grpcgo.Translate(err)
}

// streamed is one stream's replies and the latency of each (from the stream's
// start, or from the reply before it).
type streamed struct {
	replies   []proto.Message
	latencies []time.Duration
}

func (s *streamed) MessageLatencies() []time.Duration { return s.latencies }

// runStream sends the request's messages, half-closes, and reads replies until
// the server ends the stream (or the client's limit is reached: then it cancels).
func (g *grpcConn) runStream(ctx context.Context, messages []proto.Message) (*streamed, error) {
	c := g.client
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	stream, err := g.cc.NewStream(ctx, c.stream, c.path)
	if err != nil {
		return nil, err
	}
	if err := send(stream, messages); err != nil {
		return nil, err
	}
	out := &streamed{}
	for last := start; c.limit == 0 || len(out.replies) < c.limit; {
		m := dynamicpb.NewMessage(c.method.Output())
		if err := stream.RecvMsg(m); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		now := time.Now()
		out.replies, out.latencies, last = append(out.replies, m), append(out.latencies, now.Sub(last)), now
	}
	return out, nil
}

func send(stream grpc.ClientStream, messages []proto.Message) error {
	for _, m := range messages {
		if err := stream.SendMsg(m); err == io.EOF {
			return nil // the server ended the stream: RecvMsg has its status
		} else if err != nil {
			return err
		}
	}
	return stream.CloseSend()
}

func (g *grpcConn) Close() error { return g.cc.Close() }
