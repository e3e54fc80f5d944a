package target

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"rpcarena/workers/go/internal/contracttest"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/drive"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

const calls = 40

// grpc-go's own health server: a server rpcarena did not write, whose Watch is a
// server stream that never ends (the client ends it after stream_messages).
func TestHealthWatchIsMeasuredFromItsSchema(t *testing.T) {
	target := serveGrpc(t, func(s *grpc.Server) { healthpb.RegisterHealthServer(s, health.NewServer()) })
	spec := grpcSpec(target, "grpc.health.v1.Health/Watch", healthpb.File_grpc_health_v1_health_proto,
		`{"service": ""}`, `[["0.status", "SERVING"]]`, map[string]any{"stream_messages": 1})
	res := run(t, spec)
	assertClean(t, res, calls)
	if res.Messages == nil || *res.Messages != calls {
		t.Errorf("messages %v, want %d", res.Messages, calls)
	}
	line, _ := json.Marshal(res)
	contracttest.Check(t, "drive_result", line) // messages and histogram_messages are the contract's
}

func TestEveryKindOfStream(t *testing.T) {
	target := serveGrpc(t, func(s *grpc.Server) { testgrpc.RegisterTestServiceServer(s, streams{}) })
	three := `{"response_parameters": [{"size": 4}, {"size": 4}, {"size": 4}]}`
	cases := []struct {
		method, request, checks string
		messages                int64
	}{
		{"StreamingOutputCall", three, `[["2.payload.body", "AAAAAA=="], ["-1.payload.body", "AAAAAA=="]]`, 3},
		{"StreamingInputCall", `[{"payload": {"body": "AAAA"}}, {"payload": {"body": "AAAA"}}, {"payload": {"body": "AAAA"}}]`,
			`[["aggregated_payload_size", 9]]`, 1},
		{"FullDuplexCall", `[` + three + `, {"response_parameters": [{"size": 1}]}]`, `[["$.3.payload.body", "AA=="]]`, 4},
	}
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) {
			spec := grpcSpec(target, "grpc.testing.TestService/"+c.method, testgrpc.File_grpc_testing_test_proto,
				c.request, c.checks, nil)
			res := run(t, spec)
			assertClean(t, res, calls)
			if res.Messages == nil || *res.Messages != c.messages*calls {
				t.Errorf("messages %v, want %d", res.Messages, c.messages*calls)
			}
		})
	}
}

// A reply that fails its check is a wrong answer, every time, never a sample.
func TestWrongAnswersAreCounted(t *testing.T) {
	target := serveGrpc(t, func(s *grpc.Server) { healthpb.RegisterHealthServer(s, health.NewServer()) })
	spec := grpcSpec(target, "grpc.health.v1.Health/Check", healthpb.File_grpc_health_v1_health_proto,
		`{}`, `[["status", "NOT_SERVING"]]`, nil)
	res := run(t, spec)
	if res.Calls != 0 || res.Errors[core.KindWrongAnswer] != calls {
		t.Errorf("calls %d, errors %v", res.Calls, res.Errors)
	}
}

// --expect-status NOT_FOUND: that status is the answer; OK would be wrong.
func TestExpectedStatusIsAnAnswer(t *testing.T) {
	target := serveGrpc(t, func(s *grpc.Server) { healthpb.RegisterHealthServer(s, health.NewServer()) })
	spec := grpcSpec(target, "grpc.health.v1.Health/Check", healthpb.File_grpc_health_v1_health_proto,
		`{"service": "nobody"}`, `[]`, map[string]any{"expect_status": "NOT_FOUND"})
	assertClean(t, run(t, spec), calls)
}

func TestHTTP1AndH2c(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		var h2calls atomic.Int64
		server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ProtoMajor == 2 {
				h2calls.Add(1)
			}
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"got": ` + string(body) + `, "id": "` + r.URL.Query().Get("id") + `", "n": "12345678901"}`))
		}))
		server.Config.Protocols = new(http.Protocols)
		server.Config.Protocols.SetHTTP1(true)
		server.Config.Protocols.SetUnencryptedHTTP2(true)
		server.Start()
		t.Cleanup(server.Close)
		spec := baseSpec(server.Listener.Addr().String(),
			[]string{`{"method": "POST", "url": "` + server.URL + `/x?id=7", "headers": {"X-A": "b"}, "body": "{\"v\": [1.5, 2]}"}`},
			[]string{`[["got.v", [1.5, 2.0]], ["id", 7], ["n", 12345678901]]`})
		spec.External = external(map[string]any{"kind": "http", "http2": h2})
		res := run(t, spec)
		assertClean(t, res, calls)
		spec.Responses[0] = json.RawMessage(`[["got.v", [1.5, 2.5]]]`)
		if res := run(t, spec); res.Errors[core.KindWrongAnswer] != calls ||
			res.ErrorExamples[core.KindWrongAnswer] != `got.v: got [1.5,2], want [1.5,2.5]` {
			t.Errorf("errors %v %q", res.Errors, res.ErrorExamples)
		}
		if got := h2calls.Load(); (got > 0) != h2 {
			t.Errorf("http2 %v: %d calls over HTTP/2", h2, got)
		}
	}
}

func TestHTTPStatusOtherThanExpectedIsAnError(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(server.Close)
	spec := baseSpec(server.Listener.Addr().String(),
		[]string{`{"method": "GET", "url": "` + server.URL + `/", "headers": {}, "body": null}`}, []string{`[]`})
	spec.External = external(map[string]any{"kind": "http"})
	res := run(t, spec)
	if res.Errors["status_418"] != calls {
		t.Errorf("errors %v", res.Errors)
	}
	spec.External = external(map[string]any{"kind": "http", "expect_status": 418})
	assertClean(t, run(t, spec), calls)
}

// streams is a grpc.testing.TestService of the three streaming kinds.
type streams struct {
	testgrpc.UnimplementedTestServiceServer
}

func (streams) StreamingOutputCall(in *testgrpc.StreamingOutputCallRequest,
	stream testgrpc.TestService_StreamingOutputCallServer) error {
	return reply(in, stream.Send)
}

func (streams) StreamingInputCall(stream testgrpc.TestService_StreamingInputCallServer) error {
	size := 0
	for {
		in, err := stream.Recv()
		if err == io.EOF {
			return stream.SendAndClose(&testgrpc.StreamingInputCallResponse{AggregatedPayloadSize: int32(size)})
		} else if err != nil {
			return err
		}
		size += len(in.GetPayload().GetBody())
	}
}

func (streams) FullDuplexCall(stream testgrpc.TestService_FullDuplexCallServer) error {
	for {
		in, err := stream.Recv()
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := reply(in, stream.Send); err != nil {
			return err
		}
	}
}

func reply(in *testgrpc.StreamingOutputCallRequest, send func(*testgrpc.StreamingOutputCallResponse) error) error {
	for _, p := range in.GetResponseParameters() {
		payload := &testgrpc.Payload{Body: make([]byte, p.GetSize())}
		if err := send(&testgrpc.StreamingOutputCallResponse{Payload: payload}); err != nil {
			return err
		}
	}
	return nil
}

func serveGrpc(t *testing.T, register func(*grpc.Server)) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	register(s)
	go s.Serve(lis)
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

func grpcSpec(target, method string, file protoreflect.FileDescriptor, request, checks string,
	extra map[string]any) *core.Spec {
	spec := baseSpec(target, []string{request}, []string{checks})
	spec.Method = method
	d := map[string]any{"kind": "grpc", "descriptor_set_b64": descriptorSet(file)}
	for k, v := range extra {
		d[k] = v
	}
	spec.External = external(d)
	return spec
}

func baseSpec(target string, requests, checks []string) *core.Spec {
	n, limit := int64(calls), 100
	spec := &core.Spec{Contract: 1, Contender: "target-go", Target: target, Clients: 2, Calls: &n,
		TimeoutMs: 5000, SampleLimit: &limit, Arrival: core.ArrivalConstant, Mode: core.ModeUnary}
	for i := range requests {
		spec.Requests = append(spec.Requests, json.RawMessage(requests[i]))
		spec.Responses = append(spec.Responses, json.RawMessage(checks[i]))
	}
	return spec
}

func external(d map[string]any) json.RawMessage {
	data, _ := json.Marshal(d)
	return data
}

// descriptorSet is a file and everything it imports, as protoc --include_imports writes it.
func descriptorSet(file protoreflect.FileDescriptor) string {
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		for i := range f.Imports().Len() {
			add(f.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(file)
	data, _ := proto.Marshal(set)
	return base64.StdEncoding.EncodeToString(data)
}

func run(t *testing.T, spec *core.Spec) core.Result {
	t.Helper()
	client, err := NewClient(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := drive.Run(spec, client, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func assertClean(t *testing.T, res core.Result, want int64) {
	t.Helper()
	errors := int64(0)
	for _, n := range res.Errors {
		errors += n
	}
	if res.Calls != want || errors != 0 {
		t.Errorf("calls %d (want %d), errors %v %v", res.Calls, want, res.Errors, res.ErrorExamples)
	}
}

// The lean HTTP/1.1 path reads chunked replies (a handler that flushes) whole.
func TestChunkedReplies(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"a": "` + strings.Repeat("x", 3000) + `",`))
		w.(http.Flusher).Flush()
		w.Write([]byte(` "b": 2}`))
	}))
	t.Cleanup(server.Close)
	spec := baseSpec(server.Listener.Addr().String(),
		[]string{`{"method": "GET", "url": "` + server.URL + `/", "headers": {}, "body": null}`}, []string{`[["b", 2]]`})
	spec.External = external(map[string]any{"kind": "http"})
	assertClean(t, run(t, spec), calls)
}

// A keep-alive limit (Node's maxRequestsPerSocket, hypercorn's and nginx's
// 1,000) ends a connection with `Connection: close`: the reply counts, and the
// next call dials again.
func TestConnectionCloseIsAKeepAliveLimitNotAFailure(t *testing.T) {
	var dials atomic.Int64
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte(`{"ok": true}`))
	}))
	server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			dials.Add(1)
		}
	}
	server.Start()
	t.Cleanup(server.Close)
	spec := baseSpec(server.Listener.Addr().String(),
		[]string{`{"method": "GET", "url": "` + server.URL + `/", "headers": {}, "body": null}`}, []string{`[["ok", true]]`})
	spec.External = external(map[string]any{"kind": "http"})
	assertClean(t, run(t, spec), calls)
	if dials.Load() < calls {
		t.Errorf("%d connections for %d calls, each closed by the server", dials.Load(), calls)
	}
}
