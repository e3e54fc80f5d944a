package cli_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"rpcarena/workers/go/internal/cli"
)

func TestSpecsThatCannotRunExit2(t *testing.T) {
	cases := map[string]map[string]any{
		"unknown contender":    {"contender": "grpc-rust"},
		"unknown method":       {"method": "Nope"},
		"stream on rest":       {"contender": "rest-go", "method": "InvertStream", "mode": "stream"},
		"unary InvertStream":   {"method": "InvertStream"},
		"no calls or duration": {"calls": nil},
		"wrong contract":       {"contract": 2},
		"tcp-raw without data": {"contender": "tcp-raw-go", "payloads_b64": nil},
	}
	for name, extra := range cases {
		s := spec("grpc-go", "127.0.0.1:1", "Invert", nil)
		s["payloads_b64"] = payloads("Invert")
		for k, v := range extra {
			s[k] = v
		}
		if _, code, stderr := driveRaw(t, s); code != 2 || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	if code := cli.Main([]string{"drive"}, strings.NewReader("{not json"), io.Discard, io.Discard); code != 2 {
		t.Errorf("bad JSON: exit %d", code)
	}
}

func TestServeBindFailureExitsNonZero(t *testing.T) {
	target := serve(t, "tcp-raw-go")
	port := target[strings.LastIndex(target, ":")+1:]
	var stderr strings.Builder
	code := cli.Main([]string{"serve", "--contender", "rest-go", "--port", port}, strings.NewReader(""), io.Discard, &stderr)
	if code == 0 || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// With sync, drive says "warm" and waits for a line before measuring.
func TestSyncHandshake(t *testing.T) {
	target := serve(t, "grpc-go")
	in, _ := json.Marshal(spec("grpc-go", target, "Void", map[string]any{"sync": true}))
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		exit <- cli.Main([]string{"drive"}, stdinR, stdoutW, io.Discard)
		stdoutW.Close()
	}()
	go stdinW.Write(append(in, '\n')) // io.Pipe has no buffer, unlike the OS pipe
	out := bufio.NewReader(stdoutR)
	if line, _ := out.ReadString('\n'); strings.TrimSpace(line) != `{"event": "warm"}` {
		t.Fatalf("first line %q", line)
	}
	go stdinW.Write([]byte("go\n"))
	line, _ := out.ReadString('\n')
	var res struct{ Calls int64 }
	if json.Unmarshal([]byte(line), &res) != nil || res.Calls != 200 || <-exit != 0 {
		t.Errorf("result line %q", line)
	}
}
