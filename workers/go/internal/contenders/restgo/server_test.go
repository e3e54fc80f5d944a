package restgo_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/contenders/restgo"
	"rpcarena/workers/go/internal/limits"
	"rpcarena/workers/go/internal/vectors"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func post(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// Replies are read back with protojson, a decoder independent of the server's
// encoding/json, which also refuses field names other than the proto ones.
func TestHandlerAnswersEveryUnaryVector(t *testing.T) {
	vs, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(restgo.NewHandler(nil))
	defer srv.Close()
	for i, v := range vs {
		m, _ := arena.LookupMethod(v.Method)
		code, body := post(t, srv.URL+"/arena/"+v.Method, v.Request)
		got, want := m.NewResponse(), m.NewResponse()
		if code != http.StatusOK || protojson.Unmarshal(body, got) != nil || protojson.Unmarshal(v.Response, want) != nil {
			t.Fatalf("vector %d %s: status %d, body %.80s", i, v.Method, code, body)
		}
		if !proto.Equal(got, want) {
			t.Errorf("vector %d %s: got %.80s", i, v.Method, body)
		}
	}
}

func TestHandlerWritesInt64AsNumberAndReadsStrings(t *testing.T) {
	srv := httptest.NewServer(restgo.NewHandler(nil))
	defer srv.Close()
	for _, body := range []string{`{"value": -9223372036854775808}`, `{"value": "-9223372036854775808"}`} {
		code, reply := post(t, srv.URL+"/arena/EchoInt64", []byte(body))
		if code != http.StatusOK || strings.TrimSpace(string(reply)) != `{"value":-9223372036854775808}` {
			t.Errorf("%s: status %d, reply %s", body, code, reply)
		}
	}
}

func TestHandlerRefusesUnknownMethodsAndBadBodies(t *testing.T) {
	srv := httptest.NewServer(restgo.NewHandler(nil))
	defer srv.Close()
	cases := []struct {
		path, body string
		want       int
	}{
		{"/arena/Nope", `{}`, http.StatusNotFound},
		{"/arena/InvertStream", `{}`, http.StatusNotFound},
		{"/arena/Invert", `{"value": 12}`, http.StatusBadRequest},
		{"/arena/Invert", `not json`, http.StatusBadRequest},
	}
	for _, c := range cases {
		if code, _ := post(t, srv.URL+c.path, []byte(c.body)); code != c.want {
			t.Errorf("%s %s: status %d, want %d", c.path, c.body, code, c.want)
		}
	}
}

// A body past limits.MaxRequestBytes is 413, announced (Content-Length, refused
// before a byte is read) or chunked (refused where it crosses the bound), and
// the server answers the next request.
func TestBodyPastTheLimitIs413(t *testing.T) {
	srv := httptest.NewServer(restgo.NewHandler(nil))
	defer srv.Close()
	over := bytes.Repeat([]byte("x"), limits.MaxRequestBytes+1)
	if code, _ := post(t, srv.URL+"/arena/EchoString", over); code != http.StatusRequestEntityTooLarge {
		t.Errorf("announced body over the limit: status %d, want 413", code)
	}
	chunked := io.MultiReader(bytes.NewReader(over)) // no length known: sent chunked
	resp, err := http.Post(srv.URL+"/arena/EchoString", "application/json", chunked)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body over the limit: status %d, want 413", resp.StatusCode)
	}
	if code, body := post(t, srv.URL+"/arena/SayHello", []byte(`{"name":"x"}`)); code != http.StatusOK {
		t.Errorf("after the refusals: status %d, body %s", code, body)
	}
}
