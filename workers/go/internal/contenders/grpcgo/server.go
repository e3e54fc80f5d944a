package grpcgo

import (
	"net"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/predictions"
	predictionspb "rpcarena/workers/go/predictionspb"

	"google.golang.org/grpc"
)

type server struct {
	grpc  *grpc.Server
	store *predictions.Store // nil without --redis
}

// NewServer is a grpc-go server with arena.Arena registered, default options,
// and predictions.Predictions too when opts name a Redis (else UNIMPLEMENTED).
func NewServer(opts core.ServerOptions) (core.Server, error) {
	store, err := predictions.Open(opts.Redis)
	if err != nil {
		return nil, err
	}
	s := grpc.NewServer()
	pb.RegisterArenaServer(s, arena.Service{})
	if store != nil {
		predictionspb.RegisterPredictionsServer(s, predictions.Service{Store: store})
	}
	return &server{grpc: s, store: store}, nil
}

func (s *server) Serve(lis net.Listener) error { return s.grpc.Serve(lis) }

// Stop closes at once: a graceful stop would wait for the clients' open streams.
func (s *server) Stop() {
	s.grpc.Stop()
	s.store.Close()
}
