package restgo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"rpcarena/workers/go/internal/arena"
	"rpcarena/workers/go/internal/core"
	"rpcarena/workers/go/internal/userschema"

	"google.golang.org/protobuf/proto"
)

type client struct {
	user      bool   // a method of the user's schema: proto JSON, replies compared with proto.Equal
	base      string // "http://host:port"
	newConn   bool   // a new TCP connection per call (go-newconn), as a client without keep-alive
	route     route
	requests  []proto.Message
	responses []proto.Message
}

// NewClient decodes the spec's requests and responses into generated messages.
func NewClient(spec *core.Spec) (core.Client, error) {
	method, err := userschema.SpecMethod(spec)
	if err != nil {
		return nil, err
	}
	if method.Streaming || spec.Mode != core.ModeUnary {
		return nil, fmt.Errorf("rest-go is unary only: HTTP/JSON has no mapping for %s in mode %s",
			method.Name, spec.Mode)
	}
	if err := spec.RequestPairs(); err != nil {
		return nil, err
	}
	c := &client{user: spec.User(), base: "http://" + spec.Target, route: routeOf(method)}
	read := decode
	if c.user {
		c.route, read = userRoute{method}, userParsing.Unmarshal
	}
	if c.requests, err = arena.DecodeAll(spec.Requests, method.NewRequest, read); err != nil {
		return nil, fmt.Errorf("spec requests: %v", err)
	}
	if c.responses, err = arena.DecodeAll(spec.Responses, method.NewResponse, read); err != nil {
		return nil, fmt.Errorf("spec responses: %v", err)
	}
	return c, nil
}

func (c *client) Len() int { return len(c.requests) }

func (c *client) Matches(idx int, reply any) bool {
	if c.user {
		return proto.Equal(reply.(proto.Message), c.responses[idx])
	}
	return arena.Equal(reply.(proto.Message), c.responses[idx])
}

// NewConnectionClient is NewClient with a new TCP connection per call (go-newconn): the
// handshake every call pays where a client keeps no connection alive (cs6650's REST).
func NewConnectionClient(spec *core.Spec) (core.Client, error) {
	c, err := NewClient(spec)
	if err != nil {
		return nil, err
	}
	c.(*client).newConn = true
	return c, nil
}

// Dial gives the client its own transport, limited to one keep-alive connection
// (or, for go-newconn, none kept: each call opens its own and closes it).
func (c *client) Dial(context.Context) (core.Conn, error) {
	transport := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableKeepAlives: c.newConn}
	return &conn{http: &http.Client{Transport: transport}, transport: transport, client: c}, nil
}

type conn struct {
	http      *http.Client
	transport *http.Transport
	client    *client
}

func (c *conn) Call(ctx context.Context, idx int) (any, error) {
	req, err := c.client.route.request(ctx, c.client.base, c.client.requests[idx])
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return c.readReply(resp)
}

func (c *conn) readReply(resp *http.Response) (any, error) {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &core.KindError{Kind: "status_" + strconv.Itoa(resp.StatusCode), Err: fmt.Errorf("%s", resp.Status)}
	}
	reply, err := c.client.route.reply(data)
	if err != nil { // a reply that does not decode is not the answer
		return nil, &core.KindError{Kind: core.KindWrongAnswer, Err: err}
	}
	return reply, nil
}

func (c *conn) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}
