package resth3_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"rpcarena/workers/go/internal/contenders/resth3"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// wait is the most a test waits for the server to close something.
const wait = 20 * time.Second

// start serves rest-h3-go on a free loopback port, as `serve` does.
func start(t *testing.T) string {
	t.Helper()
	srv, err := resth3.NewServer(core.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return addr
}

func h3Client(t *testing.T) *http.Client {
	t.Helper()
	transport := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // the test's own server
	t.Cleanup(func() { transport.Close() })
	return &http.Client{Transport: transport}
}

func post(t *testing.T, client *http.Client, url string, body io.Reader, length int64) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// A body announced past the bound is refused (413) before it is read, and so
// is one that grows past it unannounced; the server answers on.
func TestARequestOverTheBoundIs413(t *testing.T) {
	client := h3Client(t)
	url := "https://" + start(t) + "/arena/SayHello"
	for name, length := range map[string]int64{"announced": 10 << 30, "unannounced": -1} {
		code, body := post(t, client, url, io.LimitReader(endless{}, 10<<30), length)
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: status %d, %.200s", name, code, body)
		}
	}
	if code, body := post(t, client, url, strings.NewReader(`{"name": "after"}`), -1); code != 200 || !strings.Contains(body, "Hello after") {
		t.Errorf("after: status %d, %s", code, body)
	}
}

// A QUIC connection that sends nothing is closed by the server within the idle timeout.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	t.Setenv(limits.IdleEnv, "1")
	addr := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	tlsConf := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{http3.NextProtoH3}} //nolint:gosec // the test's own server
	conn, err := quic.DialAddr(ctx, addr, tlsConf, &quic.Config{MaxIdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseWithError(0, "")
	select {
	case <-conn.Context().Done(): // HTTP/3's idle close (H3_NO_ERROR), or QUIC's own idle timeout
		var idle *quic.IdleTimeoutError
		var app *quic.ApplicationError
		cause := context.Cause(conn.Context())
		if !errors.As(cause, &idle) && !(errors.As(cause, &app) && app.Remote) {
			t.Errorf("closed by %v, want the server's idle close", cause)
		}
	case <-ctx.Done():
		t.Fatal("an idle connection was still open after the wait")
	}
}

// trickle sends a body a byte every 100 ms, which keeps the connection from
// ever being idle, until done.
type trickle struct{ done <-chan struct{} }

func (r trickle) Read(p []byte) (int, error) {
	select {
	case <-r.done:
		return 0, io.ErrUnexpectedEOF
	case <-time.After(100 * time.Millisecond):
	}
	p[0] = ' '
	return 1, nil
}

// A request whose body stops coming is given up by the server within the idle
// timeout (the stream's read deadline: http3.Server has no ReadTimeout), not
// held until the client gives up.
func TestABodyThatStopsComingIsGivenUp(t *testing.T) {
	t.Setenv(limits.IdleEnv, "1")
	client := h3Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+start(t)+"/arena/SayHello", trickle{done: ctx.Done()})
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1 << 20
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if ctx.Err() != nil || (err == nil && resp.StatusCode == http.StatusOK) {
		t.Errorf("still waiting for the body after %v: %v", wait, err)
	}
}
