package protoframes

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"rpcarena/workers/go/internal/contenders/tagless"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/vectors"
)

func serve(t *testing.T) string {
	t.Helper()
	srv, err := Contender.NewServer(core.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// Every shared vector through a real server with proto-frames-go's own client:
// the decoded reply equals the vector's response.
func TestEveryVectorThroughTheServer(t *testing.T) {
	target := serve(t)
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, v := range vs {
		if _, err := tagless.MethodIndex(v.Method); err != nil {
			continue // InvertStream: frames are unary calls
		}
		spec := &core.Spec{Target: target, Method: v.Method, Mode: core.ModeUnary,
			Requests: []json.RawMessage{v.Request}, Responses: []json.RawMessage{v.Response}}
		if got := call(t, spec); !got {
			t.Errorf("vector %d %s: wrong reply", i, v.Method)
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d vectors", checked)
	}
}

func call(t *testing.T, spec *core.Spec) bool {
	t.Helper()
	client, err := Contender.NewClient(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reply, err := conn.Call(ctx, 0)
	if err != nil {
		t.Fatalf("%s: %v", spec.Method, err)
	}
	return client.Matches(0, reply)
}

// A body that is not a protobuf message of the method is a bad request, and a
// kind that names no method an unknown method: error replies, never a panic.
func TestABadBodyIsABadRequest(t *testing.T) {
	kind, _ := tagless.MethodIndex("EchoInts")
	status, _ := tagless.HandleIn(Protobuf, uint16(kind), []byte{0xff, 0xff, 0xff, 0xff}, nil, 1<<20)
	if status != tagless.StatusBadRequest {
		t.Errorf("status %d", status)
	}
	if status, _ := tagless.HandleIn(Protobuf, 9999, nil, nil, 1<<20); status != tagless.StatusUnknownMethod {
		t.Errorf("unknown kind: status %d", status)
	}
}
