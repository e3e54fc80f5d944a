package resth3

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/limits"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"google.golang.org/protobuf/proto"
)

type client struct {
	url       string // https://host:port/arena/{Method}
	method    arena.Method
	requests  []proto.Message
	responses []proto.Message
}

// NewClient decodes the spec's requests and responses into the generated
// messages, once. HTTP/JSON is unary: a stream is an error.
func NewClient(spec *core.Spec) (core.Client, error) {
	if spec.User() {
		return nil, fmt.Errorf("rest-h3-go does not call a user's schema")
	}
	method, err := arena.LookupMethod(spec.Method)
	if err != nil {
		return nil, err
	}
	if method.Streaming || spec.Mode != core.ModeUnary || method.Service != "arena.Arena" {
		return nil, fmt.Errorf("rest-h3-go calls the unary rpcs of arena.Arena only, not %s", method.Name)
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	c := &client{url: "https://" + spec.Target + "/arena/" + method.Name, method: method}
	if c.requests, c.responses, err = arena.DecodePairs(spec.Requests, spec.Responses, method); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *client) Len() int { return len(c.requests) }

func (c *client) Matches(idx int, reply any) bool {
	return arena.Equal(reply.(proto.Message), c.responses[idx])
}

// Multiplexes: a QUIC connection carries each call on a stream of its own,
// many at once, as a gRPC channel does over HTTP/2.
func (c *client) Multiplexes() bool { return true }

// Dial gives the client its own http3.Transport: one QUIC connection, opened
// by its first call (as net/http opens rest-go's). The server's certificate is
// a fresh self-signed one (cert.go): the client cannot verify it, and skips.
func (c *client) Dial(context.Context) (core.Conn, error) {
	transport := &http3.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}, //nolint:gosec // a benchmark's own server
		QUICConfig:      &quic.Config{MaxIdleTimeout: limits.IdleTimeout()},
	}
	return &conn{http: &http.Client{Transport: transport}, transport: transport, client: c}, nil
}

type conn struct {
	http      *http.Client
	transport *http3.Transport
	client    *client
}

// Call encodes the request as rest-go's client does (encoding/json over the
// generated struct, proto field names), POSTs it and decodes the reply.
func (c *conn) Call(ctx context.Context, idx int) (any, error) {
	body, err := json.Marshal(c.client.requests[idx])
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.client.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, classify(err)
	}
	defer resp.Body.Close()
	return c.readReply(resp)
}

func (c *conn) readReply(resp *http.Response) (any, error) {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, classify(err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &core.KindError{Kind: "status_" + strconv.Itoa(resp.StatusCode), Err: fmt.Errorf("%s", resp.Status)}
	}
	reply := c.client.method.NewResponse()
	if err := json.Unmarshal(data, reply); err != nil { // a reply that does not decode is not the answer
		return nil, &core.KindError{Kind: core.KindWrongAnswer, Err: err}
	}
	return reply, nil
}

func (c *conn) Close() error { return c.transport.Close() }
