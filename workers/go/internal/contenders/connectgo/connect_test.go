package connectgo_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/contenders/connectgo"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/vectors"
)

func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux, err := connectgo.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(connectgo.Limited(mux))
	t.Cleanup(srv.Close)
	return srv
}

// call makes one call of spec's first request through the contender's client.
func call(t *testing.T, c core.Contender, spec *core.Spec) (any, error, core.Client) {
	t.Helper()
	client, err := c.NewClient(spec)
	if err != nil {
		t.Fatalf("%s %s: %v", c.ID, spec.Method, err)
	}
	conn, err := client.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reply, err := conn.Call(context.Background(), 0)
	return reply, err, client
}

func specOf(c core.Contender, target string, v vectors.Vector) *core.Spec {
	return &core.Spec{Contract: 1, Contender: c.ID, Target: target, Method: v.Method, Mode: core.ModeUnary,
		Requests: []json.RawMessage{v.Request}, Responses: []json.RawMessage{v.Response}}
}

// Both codecs' clients get every unary vector's exact answer from the server.
func TestEveryUnaryVectorInBothCodecs(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	srv := server(t)
	target := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []core.Contender{connectgo.Contender, connectgo.JSON} {
		for i, v := range vs {
			if v.Method == "InvertStream" || v.Method == "GetPredictions" {
				continue
			}
			reply, err, client := call(t, c, specOf(c, target, v))
			if err != nil || !client.Matches(0, reply) {
				t.Errorf("%s vector %d %s: reply %v, error %v", c.ID, i, v.Method, reply, err)
			}
		}
	}
}

// A count over the cap is the caller's error, named as gRPC names it.
func TestACountOverTheCapIsInvalidArgument(t *testing.T) {
	srv := server(t)
	v := vectors.Vector{Method: "GetRandNums", Request: json.RawMessage(`{"count": 1000001, "seed": 1}`),
		Response: json.RawMessage(`{}`)}
	_, err, _ := call(t, connectgo.Contender, specOf(connectgo.Contender, strings.TrimPrefix(srv.URL, "http://"), v))
	if got := core.Classify(err); got != "status_invalid_argument" {
		t.Errorf("kind %q (%v)", got, err)
	}
}

// A stream is not a Connect call over HTTP/1.1: the client says so before any call.
func TestAStreamIsRefusedBeforeAnyCall(t *testing.T) {
	spec := &core.Spec{Contract: 1, Contender: "connect-go", Target: "127.0.0.1:1", Method: "InvertStream",
		Mode: core.ModeStream, Requests: []json.RawMessage{[]byte(`{}`)}, Responses: []json.RawMessage{[]byte(`{}`)}}
	if _, err := connectgo.Contender.NewClient(spec); err == nil || !strings.Contains(err.Error(), "HTTP/2") {
		t.Errorf("error %v", err)
	}
}

func post(t *testing.T, url string, header http.Header, body io.Reader, length int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	req.ContentLength = length
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(data)
}

// endless is a body that never ends: whatever the server reads of it, it never
// reaches the end, so only a server that stops at its bound answers.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// A body announced past the bound, one that grows past it unannounced, and a
// gzip body that inflates to 64 MiB are each refused (resource_exhausted,
// Connect's HTTP 429) as soon as the bound is passed; the server answers on.
func TestARequestOverTheBoundIsRefused(t *testing.T) {
	srv := server(t)
	url := srv.URL + "/arena.Arena/SayHello"
	proto := http.Header{"Content-Type": {"application/proto"}}
	for name, attack := range map[string]func() (int, string){
		"announced": func() (int, string) { return post(t, url, proto, io.LimitReader(endless{}, 10<<30), 10<<30) },
		"chunked":   func() (int, string) { return post(t, url, proto, io.LimitReader(endless{}, 10<<30), -1) },
		"gzip bomb": func() (int, string) {
			zipped := bomb(t, 16*limits.MaxRequestBytes)
			header := http.Header{"Content-Type": {"application/proto"}, "Content-Encoding": {"gzip"}}
			return post(t, url, header, bytes.NewReader(zipped), int64(len(zipped)))
		},
	} {
		if code, body := attack(); code != http.StatusTooManyRequests || !strings.Contains(body, "resource_exhausted") {
			t.Errorf("%s: status %d, body %.200s", name, code, body)
		}
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if code, body := post(t, url, header, strings.NewReader(`{"name": "after"}`), -1); code != 200 || !strings.Contains(body, "Hello after") {
		t.Errorf("after: status %d, body %s", code, body)
	}
}

// bomb is a gzip stream of n zero bytes (n/1000 bytes or so).
func bomb(t *testing.T, n int) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	zeros := make([]byte, 1<<20)
	for range n / len(zeros) {
		if _, err := w.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
