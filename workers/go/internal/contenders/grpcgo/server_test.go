package grpcgo_test

import (
	"context"
	"net"
	"testing"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/contenders/grpcgo"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/vectors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func startServer(t *testing.T, opts core.ServerOptions) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := grpcgo.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	cc, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

func decode(t *testing.T, data []byte, m proto.Message) proto.Message {
	t.Helper()
	if err := protojson.Unmarshal(data, m); err != nil {
		t.Fatalf("vector %s: %v", data[:min(len(data), 60)], err)
	}
	return m
}

func TestServerAnswersEveryVector(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	cc := startServer(t, core.ServerOptions{})
	for i, v := range vs {
		m, err := arena.LookupMethod(v.Method)
		if err != nil {
			t.Fatal(err)
		}
		req, want := decode(t, v.Request, m.NewRequest()), decode(t, v.Response, m.NewResponse())
		got := m.NewResponse()
		if err := cc.Invoke(context.Background(), m.FullName, req, got); err != nil {
			t.Fatalf("vector %d %s: %v", i, v.Method, err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("vector %d %s: got %v", i, v.Method, got)
		}
	}
}

func TestInvertStreamAnswersInvertVectorsInOrder(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := pb.NewArenaClient(startServer(t, core.ServerOptions{})).InvertStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Method != "Invert" {
			continue
		}
		req, want := decode(t, v.Request, &pb.Word{}), decode(t, v.Response, &pb.Word{})
		if err := stream.Send(req.(*pb.Word)); err != nil {
			t.Fatal(err)
		}
		got, err := stream.Recv()
		if err != nil || !proto.Equal(got, want) {
			t.Fatalf("got %v, %v; want %v", got, err, want)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no Invert vectors")
	}
	stream.CloseSend()
}
