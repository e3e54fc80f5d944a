package grpcgo

import (
	"net"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/predictions"
	"rpcarena/workers/go/internal/userschema"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

type server struct {
	grpc  *grpc.Server
	store *predictions.Store // nil without --redis
}

// NewServer is a grpc-go server with arena.Arena registered, default options,
// predictions.Predictions too when opts name a Redis (else UNIMPLEMENTED), and
// the user's method when opts name its served.json.
func NewServer(opts core.ServerOptions) (core.Server, error) {
	user, err := userschema.Open(opts.Schema)
	if err != nil {
		return nil, err
	}
	store, err := predictions.Open(opts.Redis)
	if err != nil {
		return nil, err
	}
	s := grpc.NewServer(bounds()...)
	pb.RegisterArenaServer(s, arena.Service{})
	if user != nil {
		registerUser(s, user)
	}
	if store != nil {
		predictionspb.RegisterPredictionsServer(s, predictions.Service{Store: store})
	}
	return &server{grpc: s, store: store}, nil
}

// bounds keep a peer from holding the server: a message over
// limits.MaxRequestBytes is RESOURCE_EXHAUSTED (grpc-go's default, said here),
// a connection without a call for the idle timeout is closed (GOAWAY), and so
// is one that does not answer a ping within it (a peer that stopped reading).
func bounds() []grpc.ServerOption {
	idle := limits.IdleTimeout()
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(limits.MaxRequestBytes),
		grpc.ConnectionTimeout(idle),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: idle, Time: idle, Timeout: idle}),
	}
}

func (s *server) Serve(lis net.Listener) error { return s.grpc.Serve(lis) }

// Stop closes at once: a graceful stop would wait for the clients' open streams.
func (s *server) Stop() {
	s.grpc.Stop()
	s.store.Close()
}
