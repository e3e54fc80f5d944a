package connectgo

import (
	"context"
	"net"
	"net/http"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/userschema"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// answer computes one reply from a request connect has decoded.
type answer func(ctx context.Context, request proto.Message) (proto.Message, error)

type server struct{ http *http.Server }

// NewServer serves every unary rpc of arena.Arena at /arena.Arena/{Method},
// and the user's unary method when opts name its served.json, on net/http's
// HTTP/1.1 server. Streams are not served: Connect carries a bidirectional
// stream over HTTP/2 only.
func NewServer(opts core.ServerOptions) (core.Server, error) {
	user, err := userschema.Open(opts.Schema)
	if err != nil {
		return nil, err
	}
	mux, err := NewHandler()
	if err != nil {
		return nil, err
	}
	if user != nil {
		if err := handle(mux, user.Method, func(_ context.Context, r proto.Message) (proto.Message, error) {
			return user.Answer(r)
		}); err != nil {
			return nil, err
		}
	}
	return &server{http: bounded(limited(mux))}, nil
}

// NewHandler is the arena's handlers, for a server or an httptest server; the
// server reads no body past the bound (limited).
func NewHandler() (*http.ServeMux, error) {
	mux := http.NewServeMux()
	for _, desc := range pb.Arena_ServiceDesc.Methods {
		method, err := arena.LookupMethod(desc.MethodName)
		if err != nil {
			return nil, err
		}
		if err := handle(mux, method, arenaAnswer(desc)); err != nil {
			return nil, err
		}
	}
	return mux, nil
}

// handle adds method's connect handler to mux: the generated types decoded and
// encoded by connect's own codecs, replies gzipped as connect's handlers do by
// default, a request over limits.MaxRequestBytes (as sent or inflated) refused
// with RESOURCE_EXHAUSTED.
func handle(mux *http.ServeMux, method arena.Method, answer answer) error {
	md, err := descriptorOf(method)
	if err != nil {
		return err
	}
	unary := func(ctx context.Context, req *connect.Request[message]) (*connect.Response[message], error) {
		reply, err := answer(ctx, req.Msg.Message)
		if err != nil {
			return nil, refusal(err)
		}
		return connect.NewResponse(&message{reply}), nil
	}
	mux.Handle(method.FullName, connect.NewUnaryHandler(method.FullName, unary, connect.WithSchema(md),
		connect.WithRequestInitializer(initializer(method.NewRequest)), connect.WithReadMaxBytes(limits.MaxRequestBytes), boundedGzip()))
	return nil
}

// arenaAnswer runs the arena's implementation of one rpc (arena.Service, which
// grpc-go registers) on a request already decoded: the generated gRPC handler
// with nothing left to decode, and an interceptor that hands it the request.
func arenaAnswer(desc grpc.MethodDesc) answer {
	nothing := func(any) error { return nil }
	return func(ctx context.Context, request proto.Message) (proto.Message, error) {
		handOver := func(ctx context.Context, _ any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			return next(ctx, request)
		}
		reply, err := desc.Handler(arena.Service{}, ctx, nothing, handOver)
		msg, _ := reply.(proto.Message)
		return msg, err
	}
}

// refusal is the caller's error (arena.Refused: a count over the cap; a request
// the user's reply file has no answer for): INVALID_ARGUMENT, as grpc-go says it.
func refusal(err error) error { return connect.NewError(connect.CodeInvalidArgument, err) }

// bounded is an http.Server a peer cannot hold: headers within the idle
// timeout, a whole request read and its reply taken within it, a keep-alive
// connection idle that long closed.
func bounded(h http.Handler) *http.Server {
	idle := limits.IdleTimeout()
	return &http.Server{Handler: h, ReadHeaderTimeout: idle, ReadTimeout: idle, WriteTimeout: idle,
		IdleTimeout: idle, MaxHeaderBytes: 64 << 10}
}

func (s *server) Serve(lis net.Listener) error { return s.http.Serve(lis) }

func (s *server) Stop() { s.http.Close() }
