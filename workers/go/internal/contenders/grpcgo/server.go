package grpcgo

import (
	"net"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"

	"google.golang.org/grpc"
)

type server struct{ grpc *grpc.Server }

// NewServer is a grpc-go server with arena.Arena registered, default options.
func NewServer() core.Server {
	s := grpc.NewServer()
	pb.RegisterArenaServer(s, arena.Service{})
	return &server{grpc: s}
}

func (s *server) Serve(lis net.Listener) error { return s.grpc.Serve(lis) }

// Stop closes at once: a graceful stop would wait for the clients' open streams.
func (s *server) Stop() { s.grpc.Stop() }
