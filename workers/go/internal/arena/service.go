package arena

import (
	"context"
	"errors"
	"io"

	pb "rpcarena/workers/go/arenapb"

	"google.golang.org/grpc"
)

// Service implements arena.Arena. The gRPC server registers it; the REST server
// dispatches to the same methods, so both answer with one implementation.
type Service struct {
	pb.UnimplementedArenaServer
}

func (Service) Void(context.Context, *pb.Empty) (*pb.Empty, error) { return &pb.Empty{}, nil }

func (Service) Distance(_ context.Context, p *pb.VectorPair) (*pb.DoubleMsg, error) {
	a, b := p.GetA(), p.GetB()
	d := Distance(a.GetX(), a.GetY(), a.GetZ(), b.GetX(), b.GetY(), b.GetZ())
	return &pb.DoubleMsg{Value: d}, nil
}

func (Service) SayHello(_ context.Context, r *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{Message: Hello(r.GetName())}, nil
}

func (Service) Average(_ context.Context, n *pb.Numbers) (*pb.AverageReply, error) {
	return &pb.AverageReply{Value: Average(n.GetValues())}, nil
}

func (Service) GetRandNums(_ context.Context, r *pb.RandRequest) (*pb.Numbers, error) {
	return &pb.Numbers{Values: RandNums(r.GetCount(), r.GetSeed())}, nil
}

func (Service) Invert(_ context.Context, w *pb.Word) (*pb.Word, error) {
	return &pb.Word{Value: Invert(w.GetValue())}, nil
}

// InvertStream answers every word on the stream, in order, until the client closes it.
func (Service) InvertStream(stream grpc.BidiStreamingServer[pb.Word, pb.Word]) error {
	for {
		w, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := stream.Send(&pb.Word{Value: Invert(w.GetValue())}); err != nil {
			return err
		}
	}
}
