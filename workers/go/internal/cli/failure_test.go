package cli_test

import (
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"rpcarena/workers/go/internal/core"
)

// Expected answers that the server does not give are counted, never timed.
func TestWrongAnswersAreCountedNotTimed(t *testing.T) {
	word := []map[string]any{{"value": "abc"}}
	for _, contender := range []string{"grpc-go", "rest-go"} {
		target := serve(t, contender)
		res := drive(t, spec(contender, target, "Invert", map[string]any{"requests": word, "responses": word}))
		assertAllFailed(t, res, core.KindWrongAnswer)
	}
}

func TestWrongServerAnswers(t *testing.T) {
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"value": "not the inverse"}`))
	}))
	defer rest.Close()
	res := drive(t, spec("rest-go", rest.Listener.Addr().String(), "Invert", nil))
	assertAllFailed(t, res, core.KindWrongAnswer)

	res = drive(t, spec("tcp-raw-go", fakeTCP(t, corruptEcho), "EchoString", nil))
	assertAllFailed(t, res, core.KindWrongAnswer)
}

func TestServerDownGivesConnectionErrors(t *testing.T) {
	for _, contender := range []string{"grpc-go", "rest-go", "tcp-raw-go"} {
		res := drive(t, spec(contender, freeTarget(t), "Invert", map[string]any{"mode": "unary"}))
		assertAllFailed(t, res, core.KindConnection)
	}
}

func TestSilentServerGivesTimeouts(t *testing.T) {
	target := fakeTCP(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	for _, contender := range []string{"grpc-go", "rest-go", "tcp-raw-go"} {
		res := drive(t, spec(contender, target, "Invert", map[string]any{
			"calls": 3, "clients": 1, "warmup_s": 0, "timeout_ms": 30}))
		if res.Calls != 0 || res.Errors[core.KindTimeout] != 3 {
			t.Errorf("%s: calls %d, errors %v", contender, res.Calls, res.Errors)
		}
	}
}

func assertAllFailed(t *testing.T, res core.Result, kind string) {
	t.Helper()
	if res.Calls != 0 || res.Errors[kind] != 200 || errorTotal(res) != 200 {
		t.Fatalf("calls %d, errors %v; want 200 %s", res.Calls, res.Errors, kind)
	}
	if histogramCount(t, res.Histogram) != 0 || len(res.Samples) != 0 {
		t.Errorf("failed calls were timed")
	}
	if res.ErrorExamples[kind] == "" {
		t.Errorf("no example of %s in %v", kind, res.ErrorExamples)
	}
}

// fakeTCP serves every connection with handle, until the test ends.
func fakeTCP(t *testing.T, handle func(net.Conn)) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lis.Close() })
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go handle(c)
		}
	}()
	return lis.Addr().String()
}

// corruptEcho echoes tcp-raw frames with their last byte changed.
func corruptEcho(c net.Conn) {
	header := make([]byte, 4)
	for {
		if _, err := io.ReadFull(c, header); err != nil {
			return
		}
		payload := make([]byte, binary.BigEndian.Uint32(header))
		if _, err := io.ReadFull(c, payload); err != nil {
			return
		}
		if len(payload) > 0 {
			payload[len(payload)-1] ^= 0xff
		}
		c.Write(append(header, payload...))
	}
}
