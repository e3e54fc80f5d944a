package grpcgo

import (
	"context"
	"errors"
	"io"

	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// registerUser serves the user's method with a grpc.ServiceDesc made at run
// time: what protoc-gen-go-grpc's generated Register function passes, with
// handlers that decode into the generated message types (the schema is known
// only when the run starts, so its service is described then).
func registerUser(s *grpc.Server, h *userschema.Handler) {
	desc := grpc.ServiceDesc{ServiceName: h.Method.Service, HandlerType: (*any)(nil)}
	if h.Method.OneWay() != "" {
		desc.Streams = []grpc.StreamDesc{*oneWayDesc(h.Method)}
		desc.Streams[0].Handler = oneWayHandler(h)
	} else if h.Method.Streaming {
		desc.Streams = []grpc.StreamDesc{{StreamName: h.Method.Name, ServerStreams: true, ClientStreams: true,
			Handler: func(_ any, stream grpc.ServerStream) error { return serveStream(h, stream) }}}
	} else {
		desc.Methods = []grpc.MethodDesc{{MethodName: h.Method.Name, Handler: unaryHandler(h)}}
	}
	s.RegisterService(&desc, struct{}{})
}

func unaryHandler(h *userschema.Handler) grpc.MethodHandler {
	return func(_ any, ctx context.Context, decode func(any) error, intercept grpc.UnaryServerInterceptor) (any, error) {
		request := h.Method.NewRequest()
		if err := decode(request); err != nil {
			return nil, err
		}
		answer := func(_ context.Context, request any) (any, error) { return answerOf(h, request) }
		if intercept == nil {
			return answer(ctx, request)
		}
		info := &grpc.UnaryServerInfo{Server: nil, FullMethod: h.Method.FullName}
		return intercept(ctx, request, info, answer)
	}
}

// serveStream answers each message of a bidirectional stream in order.
func serveStream(h *userschema.Handler, stream grpc.ServerStream) error {
	for {
		request := h.Method.NewRequest()
		if err := stream.RecvMsg(request); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		reply, err := answerOf(h, request)
		if err != nil {
			return err
		}
		if err := stream.SendMsg(reply); err != nil {
			return err
		}
	}
}

func answerOf(h *userschema.Handler, request any) (any, error) {
	reply, err := h.Answer(request.(proto.Message))
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return reply, nil
}
