package arena

import (
	"context"
	"errors"
	"io"

	pb "rpcarena/workers/go/arenapb"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Service implements arena.Arena: what each operation computes is written here
// (and in echo.go), once. The gRPC server registers it; rest-go and tagless-go
// reach it by name through Unary, so all answer with one implementation.
type Service struct {
	pb.UnimplementedArenaServer
}

// Handler runs one unary rpc on Service. decode fills the empty request it is
// given, with the caller's own codec; an error of decode comes back unchanged.
type Handler func(ctx context.Context, decode func(proto.Message) error) (proto.Message, error)

// unary is the one table of operations keyed by name. It is built from the
// generated service description, whose handlers call Service's method of each
// name, the very table grpc-go dispatches with: it cannot lag behind proto/.
var unary = func() map[string]Handler {
	table := map[string]Handler{}
	for _, m := range pb.Arena_ServiceDesc.Methods {
		table[m.MethodName] = handlerOf(m)
	}
	return table
}()

func handlerOf(m grpc.MethodDesc) Handler {
	return func(ctx context.Context, decode func(proto.Message) error) (proto.Message, error) {
		dec := func(in any) error { return decode(in.(proto.Message)) }
		reply, err := m.Handler(Service{}, ctx, dec, nil)
		msg, _ := reply.(proto.Message) // untyped nil when decode failed
		return msg, err
	}
}

// Unary finds the unary rpc name of arena.Arena (false for a streaming rpc or
// an unknown name).
func Unary(name string) (Handler, bool) {
	h, ok := unary[name]
	return h, ok
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
	values, err := RandNums(r.GetCount(), r.GetSeed())
	if err != nil {
		return nil, err
	}
	return &pb.Numbers{Values: values}, nil
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
