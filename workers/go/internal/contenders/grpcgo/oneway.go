package grpcgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// A user's client- or server-streaming method: a call is one stream, as the
// generated stubs make it. A client stream sends K requests, half-closes and
// reads the one reply (CloseAndRecv); a server stream sends one request and
// reads replies to the end. The server answers a client stream's last request,
// and a server stream's request K times (the handler's cost spent once).

// oneWayDesc is the stream's description, as protoc-gen-go-grpc writes it.
func oneWayDesc(m arena.Method) *grpc.StreamDesc {
	return &grpc.StreamDesc{StreamName: m.Name, ClientStreams: m.ClientStreams, ServerStreams: m.ServerStreams}
}

// serveUpload reads a client stream to its end, keeping the last request, and answers it.
func serveUpload(h *userschema.Handler, stream grpc.ServerStream) error {
	var last proto.Message
	for {
		request := h.Method.NewRequest()
		if err := stream.RecvMsg(request); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		last = request
	}
	if last == nil {
		return status.Error(codes.InvalidArgument, "an empty stream: no request to answer")
	}
	reply, err := answerOf(h, last)
	if err != nil {
		return err
	}
	return stream.SendMsg(reply)
}

// serveFollow answers a server stream's one request StreamMessages times.
func serveFollow(h *userschema.Handler, stream grpc.ServerStream) error {
	request := h.Method.NewRequest()
	if err := stream.RecvMsg(request); err != nil {
		return err
	}
	reply, err := answerOf(h, request)
	if err != nil {
		return err
	}
	for i := 0; i < h.StreamMessages; i++ {
		if err := stream.SendMsg(reply); err != nil {
			return err
		}
	}
	return nil
}

// oneWayHandler is the server's side of either one-way stream.
func oneWayHandler(h *userschema.Handler) grpc.StreamHandler {
	if h.Method.ClientStreams {
		return func(_ any, stream grpc.ServerStream) error { return serveUpload(h, stream) }
	}
	return func(_ any, stream grpc.ServerStream) error { return serveFollow(h, stream) }
}

// decodeSide reads one side of the calls (requests or replies): a message
// each, or, on a one-way stream's streamed side, a list each.
func decodeSide(raw []json.RawMessage, newMessage func() proto.Message, streamed bool) ([]proto.Message,
	[][]proto.Message, error) {
	if streamed {
		lists, err := decodeLists(raw, newMessage)
		return nil, lists, err
	}
	one, err := arena.DecodeAll(raw, newMessage, protoUnmarshal)
	return one, nil, err
}

// decodeLists reads each item of raw, a JSON array of messages, into messages
// (a client stream's requests, a server stream's replies).
func decodeLists(raw []json.RawMessage, newMessage func() proto.Message) ([][]proto.Message, error) {
	lists := make([][]proto.Message, len(raw))
	for i, item := range raw {
		var parts []json.RawMessage
		if err := json.Unmarshal(item, &parts); err != nil {
			return nil, fmt.Errorf("item %d: a one-way stream's messages are a JSON array: %v", i, err)
		}
		list, err := arena.DecodeAll(parts, newMessage, protoUnmarshal)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		lists[i] = list
	}
	return lists, nil
}

// equalLists: a server stream's replies, every one as expected and no more or fewer.
func equalLists(got, want []proto.Message) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !proto.Equal(got[i], want[i]) {
			return false
		}
	}
	return true
}

// oneWayConn is a unary connection whose calls are streams (Close is the channel's).
type oneWayConn struct{ unaryConn }

func (o *oneWayConn) Call(ctx context.Context, idx int) (any, error) {
	c := o.client
	out := &streamed{last: time.Now()}
	stream, err := o.cc.NewStream(ctx, oneWayDesc(c.method), c.method.FullName)
	if err != nil {
		return nil, Translate(err)
	}
	if c.method.ClientStreams {
		err = upload(stream, c.uploads[idx], c.method.NewResponse(), out)
	} else {
		err = follow(stream, c.requests[idx], c.method, len(c.followed[idx]), out)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// streamed is a one-way stream's replies and each one's latency, from the
// stream's start or from the reply before it, as the target driver keeps them
// (core.Streamed): the drive loop records them per message.
type streamed struct {
	replies   []proto.Message
	latencies []time.Duration
	last      time.Time // the stream's start, then when the last reply came
}

func (s *streamed) MessageLatencies() []time.Duration { return s.latencies }

// add keeps a reply read now, timed from the one before it.
func (s *streamed) add(reply proto.Message) {
	now := time.Now()
	s.replies, s.latencies, s.last = append(s.replies, reply), append(s.latencies, now.Sub(s.last)), now
}

// upload sends the call's requests and reads the one reply (CloseAndRecv).
func upload(stream grpc.ClientStream, requests []proto.Message, reply proto.Message, out *streamed) error {
	for _, request := range requests {
		if err := stream.SendMsg(request); err != nil {
			return Translate(err)
		}
	}
	if err := stream.CloseSend(); err != nil {
		return Translate(err)
	}
	if err := stream.RecvMsg(reply); err != nil {
		return Translate(err)
	}
	out.add(reply)
	return nil
}

// follow sends the request and reads the replies to the stream's end, at most
// one more than expected (a longer stream is a wrong answer already: the rest
// is not read into memory; the stream is cancelled with the call's context).
func follow(stream grpc.ClientStream, request proto.Message, m arena.Method, expected int, out *streamed) error {
	if err := stream.SendMsg(request); err != nil {
		return Translate(err)
	}
	if err := stream.CloseSend(); err != nil {
		return Translate(err)
	}
	for len(out.replies) <= expected {
		reply := m.NewResponse()
		if err := stream.RecvMsg(reply); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return Translate(err)
		}
		out.add(reply)
	}
	return nil
}

// modeOf is the drive spec's mode for a method.
func modeOf(m arena.Method) string {
	switch m.OneWay() {
	case "client":
		return core.ModeClientStream
	case "server":
		return core.ModeServerStream
	}
	if m.Streaming {
		return core.ModeStream
	}
	return core.ModeUnary
}
