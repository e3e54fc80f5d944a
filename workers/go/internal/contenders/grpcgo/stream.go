package grpcgo

import (
	"context"

	pb "rpcarena/workers/go/arenapb"

	"google.golang.org/grpc"
)

// streamConn is one client's channel with its one InvertStream; a call is one
// Word sent and its reply received (ping-pong).
type streamConn struct {
	cc     *grpc.ClientConn
	stream grpc.BidiStreamingClient[pb.Word, pb.Word]
	cancel context.CancelFunc
	client *client
}

func openStream(cc *grpc.ClientConn, c *client) (*streamConn, error) {
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := pb.NewArenaClient(cc).InvertStream(ctx)
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
	reply, err := s.exchange(s.client.requests[idx].(*pb.Word))
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return reply, Translate(err)
}

func (s *streamConn) exchange(word *pb.Word) (*pb.Word, error) {
	if err := s.stream.Send(word); err != nil {
		_, err = s.stream.Recv() // Send reports io.EOF; Recv has the stream's real status
		return nil, err
	}
	return s.stream.Recv()
}

func (s *streamConn) Close() error {
	s.cancel()
	return s.cc.Close()
}
