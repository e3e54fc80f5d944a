package grpcgo

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// streamConn is one client's channel with its one bidirectional stream
// (InvertStream, or a user's stream method); a call is one message sent and its
// reply received (ping-pong). The stream is grpc-go's own ClientStream, as the
// generated stubs open it, so any method's messages go through one path.
type streamConn struct {
	cc     *grpc.ClientConn
	stream grpc.ClientStream
	cancel context.CancelFunc
	client *client
}

var bidi = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

func openStream(cc *grpc.ClientConn, c *client) (*streamConn, error) {
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := cc.NewStream(ctx, bidi, c.method.FullName)
	if err != nil {
		cancel()
		cc.Close()
		return nil, Translate(err)
	}
	return &streamConn{cc: cc, stream: stream, cancel: cancel, client: c}, nil
}

func (s *streamConn) Call(ctx context.Context, idx int) (any, error) {
	// A message has no deadline of its own: past the call's timeout, end the
	// stream (the drive loop then opens a new one, as after any timeout).
	stop := context.AfterFunc(ctx, s.cancel)
	defer stop()
	reply, err := s.exchange(s.client.requests[idx])
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return reply, Translate(err)
}

func (s *streamConn) exchange(request proto.Message) (proto.Message, error) {
	reply := s.client.method.NewResponse()
	if err := s.stream.SendMsg(request); err != nil {
		return nil, s.stream.RecvMsg(reply) // Send reports io.EOF; Recv has the stream's real status
	}
	return reply, s.stream.RecvMsg(reply)
}

func (s *streamConn) Close() error {
	s.cancel()
	return s.cc.Close()
}
