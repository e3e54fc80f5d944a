package arena_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	pb "rpcarena/workers/go/arenapb"
	"rpcarena/workers/go/internal/arena"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Service embeds UnimplementedArenaServer, so an rpc added to proto/arena.proto
// without its method on Service would compile and answer UNIMPLEMENTED on every
// mechanism. Each rpc is called here with an empty request (or an ended stream).
func TestServiceImplementsEveryRpc(t *testing.T) {
	rpcs := pb.File_arena_proto.Services().ByName("Arena").Methods()
	for i := range rpcs.Len() {
		name := string(rpcs.Get(i).Name())
		err := callEmpty(name)
		if status.Code(err) == codes.Unimplemented {
			t.Errorf("%s: add its method to arena.Service (internal/arena/service.go)", name)
		} else if err != nil {
			t.Errorf("%s on an empty request: %v", name, err)
		}
	}
}

func callEmpty(name string) error {
	if call, ok := arena.Unary(name); ok {
		_, err := call(context.Background(), func(proto.Message) error { return nil })
		return err
	}
	for _, s := range pb.Arena_ServiceDesc.Streams {
		if s.StreamName == name {
			return s.Handler(arena.Service{}, endedStream{})
		}
	}
	return fmt.Errorf("no generated handler: rerun gen.sh")
}

// endedStream is a bidirectional stream the client closed before sending.
type endedStream struct{ grpc.ServerStream }

func (endedStream) RecvMsg(any) error { return io.EOF }

func TestUnaryPassesDecodeErrorsOnAndKnowsOnlyUnaryRpcs(t *testing.T) {
	call, ok := arena.Unary("Invert")
	if !ok {
		t.Fatal("Invert missing")
	}
	refused := fmt.Errorf("bad body")
	if _, err := call(context.Background(), func(proto.Message) error { return refused }); err != refused {
		t.Errorf("decode error came back as %v", err)
	}
	reply, err := call(context.Background(), func(m proto.Message) error {
		m.(*pb.Word).Value = "abc"
		return nil
	})
	if err != nil || reply.(*pb.Word).GetValue() != "cba" {
		t.Errorf("Invert(abc) = %v, %v", reply, err)
	}
	for _, name := range []string{"InvertStream", "GetPredictions", "Nope"} {
		if _, ok := arena.Unary(name); ok {
			t.Errorf("Unary(%q) found", name)
		}
	}
}

func TestLookupMethodReadsTheSchema(t *testing.T) {
	m, err := arena.LookupMethod("EchoLargeData8192")
	if err != nil || m.FullName != "/arena.Arena/EchoLargeData8192" || m.Streaming {
		t.Fatalf("got %+v, %v", m, err)
	}
	if _, ok := m.NewRequest().(*pb.LargeData8192); !ok {
		t.Fatalf("request type %T", m.NewRequest())
	}
	if s, _ := arena.LookupMethod("InvertStream"); !s.Streaming {
		t.Fatal("InvertStream is streaming")
	}
	if p, _ := arena.LookupMethod("GetPredictions"); p.FullName != "/predictions.Predictions/GetPredictions" ||
		p.Service != "predictions.Predictions" {
		t.Fatalf("GetPredictions: %+v", p)
	}
	if _, err := arena.LookupMethod("Nope"); err == nil {
		t.Fatal("unknown method accepted")
	}
}

func TestEqualToleratesOnlyTinyDoubleDifferences(t *testing.T) {
	cases := []struct {
		a, b proto.Message
		want bool
	}{
		{&pb.DoubleMsg{Value: 1}, &pb.DoubleMsg{Value: 1 + 1e-12}, true},
		{&pb.DoubleMsg{Value: 1}, &pb.DoubleMsg{Value: 1 + 1e-6}, false},
		{&pb.DoubleMsg{Value: 0}, &pb.DoubleMsg{}, true},
		{&pb.DoubleList{Values: []float64{1, 2}}, &pb.DoubleList{Values: []float64{1}}, false},
		{&pb.VectorPair{A: &pb.Vector3{}}, &pb.VectorPair{}, true}, // unset equals default
		{&pb.ItemList{Items: []*pb.Item{{Id: 1, Price: 2.5}}}, &pb.ItemList{Items: []*pb.Item{{Id: 1, Price: 2.5}}}, true},
		{&pb.ItemList{Items: []*pb.Item{{Id: 1}}}, &pb.ItemList{Items: []*pb.Item{{Id: 2}}}, false},
		{&pb.Word{Value: "a"}, &pb.Word{Value: "b"}, false},
	}
	for i, c := range cases {
		if got := arena.Equal(c.a, c.b); got != c.want {
			t.Errorf("case %d: Equal = %v, want %v", i, got, c.want)
		}
	}
}

func TestSemanticsEdgeCases(t *testing.T) {
	if got := arena.Invert("añb€c😀d"); got != "d😀c€bña" {
		t.Errorf("Invert = %q", got)
	}
	if got := arena.Average([]int32{2147483647, 2147483647, -2147483648}); got != 715827882 {
		t.Errorf("Average overflowed: %v", got)
	}
	if got, err := arena.RandNums(-1, 7); len(got) != 0 || err != nil {
		t.Errorf("negative count gave %v, %v", got, err)
	}
}

// The contract's cap: 1,000,000 values at most, a request over it refused with
// INVALID_ARGUMENT naming the cap, and the cap itself served.
func TestRandNumsIsCappedAtOneMillion(t *testing.T) {
	if got, err := arena.RandNums(1_000_000, 7); len(got) != 1_000_000 || err != nil {
		t.Fatalf("the cap itself: %d values, %v", len(got), err)
	}
	call, _ := arena.Unary("GetRandNums")
	_, err := call(context.Background(), func(m proto.Message) error {
		m.(*pb.RandRequest).Count = 1_000_001
		return nil
	})
	var refused *arena.Refused
	if !errors.As(err, &refused) || status.Code(err) != codes.InvalidArgument ||
		!strings.Contains(err.Error(), "over the cap of 1000000") {
		t.Fatalf("1,000,001 values: %v (code %v)", err, status.Code(err))
	}
}
