package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"testing"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/cli"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/predictions/redistest"
	"rpcarena/workers/go/internal/vectors"

	"github.com/HdrHistogram/hdrhistogram-go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// serve runs `worker serve` in-process, as the orchestrator would run the
// binary, and returns the target from its ready line. Cleanup closes its stdin
// and checks it exits 0. Extra arguments follow the address (--redis URL).
func serve(t *testing.T, contender string, extra ...string) string {
	t.Helper()
	target, _ := serveReady(t, contender, extra...)
	return target
}

// serveReady is serve that also returns the ready line as printed.
func serveReady(t *testing.T, contender string, extra ...string) (string, []byte) {
	t.Helper()
	args := append([]string{"serve", "--contender", contender, "--host", "127.0.0.1", "--port", "0"}, extra...)
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main(args, stdinR, stdoutW, io.Discard)
	}()
	line, err := bufio.NewReader(stdoutR).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Event          string
		Port, Contract int
	}
	if json.Unmarshal(line, &ready) != nil || ready.Event != "ready" || ready.Contract != 1 {
		t.Fatalf("ready line %q", line)
	}
	t.Cleanup(func() {
		stdinW.Close()
		if code := <-exit; code != 0 {
			t.Errorf("serve exited %d", code)
		}
	})
	return fmt.Sprintf("127.0.0.1:%d", ready.Port), line
}

// drive runs `worker drive` in-process on a spec and decodes its result.
func drive(t *testing.T, spec map[string]any) core.Result {
	t.Helper()
	res, code, stderr := driveRaw(t, spec)
	if code != 0 {
		t.Fatalf("drive exited %d: %s", code, stderr)
	}
	return res
}

func driveRaw(t *testing.T, spec map[string]any) (core.Result, int, string) {
	t.Helper()
	line, code, stderr := driveLine(t, spec)
	var res core.Result
	if code == 0 {
		if err := json.Unmarshal(line, &res); err != nil {
			t.Fatalf("result %q: %v", line, err)
		}
	}
	return res, code, stderr
}

// driveLine runs `worker drive` on a spec and returns the last line it printed
// (the result; a synced drive prints {"event": "warm"} before it).
func driveLine(t *testing.T, spec map[string]any) ([]byte, int, string) {
	t.Helper()
	in, _ := json.Marshal(spec)
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"drive"}, bytes.NewReader(in), &out, &errOut)
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	return lines[len(lines)-1], code, errOut.String()
}

// spec is a small closed-loop spec; extra entries override.
func spec(contender, target, method string, extra map[string]any) map[string]any {
	s := map[string]any{"contract": 1, "contender": contender, "target": target, "method": method,
		"clients": 2, "warmup_s": 0.1, "calls": 200, "timeout_ms": 5000, "sample_limit": 50}
	if method == "GetPredictions" {
		s["requests"], s["responses"] = redistest.Requests, redistest.Responses
	} else if contender != "tcp-raw-go" {
		s["requests"], s["responses"] = pairs(method)
	} else {
		s["payloads_b64"] = payloads(method)
	}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

var loaded []vectors.Vector

func vectorsOf(method string) []vectors.Vector {
	if loaded == nil {
		var err error
		if loaded, err = vectors.Load(); err != nil {
			panic(err)
		}
	}
	var vs []vectors.Vector
	for _, v := range loaded {
		if v.Method == method || method == "InvertStream" && v.Method == "Invert" {
			vs = append(vs, v)
		}
	}
	return vs
}

func pairs(method string) (requests, responses []json.RawMessage) {
	for _, v := range vectorsOf(method) {
		requests, responses = append(requests, v.Request), append(responses, v.Response)
	}
	return requests, responses
}

// payloads are the protobuf encodings of the method's vector requests.
func payloads(method string) []string {
	m, _ := arena.LookupMethod(method)
	var out []string
	for _, v := range vectorsOf(method) {
		req := m.NewRequest()
		protojson.Unmarshal(v.Request, req)
		b, _ := proto.Marshal(req)
		out = append(out, base64Std(b))
	}
	return out
}

func histogramCount(t *testing.T, encoded string) int64 {
	t.Helper()
	h, err := hdrhistogram.Decode([]byte(encoded))
	if err != nil {
		t.Fatalf("histogram does not decode: %v", err)
	}
	return h.TotalCount()
}

func errorTotal(res core.Result) int64 {
	var n int64
	for _, c := range res.Errors {
		n += c
	}
	return n
}

// freeTarget is an address where nothing listens.
func freeTarget(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}
