package tcpraw

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"

	"rpcarena/workers/go/internal/core"
)

type client struct {
	target string
	frames [][]byte // each payload with its header, built once
}

// NewClient decodes the spec's payloads_b64 (protobuf encodings of the requests).
func NewClient(spec *core.Spec) (core.Client, error) {
	if len(spec.PayloadsB64) == 0 {
		return nil, errors.New("a tcp-raw spec needs payloads_b64")
	}
	c := &client{target: spec.Target}
	for i, p := range spec.PayloadsB64 {
		payload, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			return nil, fmt.Errorf("payloads_b64 item %d: %v", i, err)
		}
		c.frames = append(c.frames, frame(payload))
	}
	return c, nil
}

func (c *client) Len() int { return len(c.frames) }

// Matches: the reply frame must be the frame sent.
func (c *client) Matches(idx int, reply any) bool { return bytes.Equal(reply.([]byte), c.frames[idx]) }

func (c *client) Dial(ctx context.Context) (core.Conn, error) {
	var d net.Dialer
	tcp, err := d.DialContext(ctx, "tcp", c.target)
	if err != nil {
		return nil, err
	}
	return &conn{tcp: tcp, in: bufio.NewReaderSize(tcp, readBuffer), frames: c.frames}, nil
}

type conn struct {
	tcp    net.Conn
	in     *bufio.Reader // one read takes a reply's header and payload
	frames [][]byte
	buf    []byte // reply buffer, reused: the reply is checked before the next call
}

func (c *conn) Call(ctx context.Context, idx int) (any, error) {
	deadline, _ := ctx.Deadline()
	c.tcp.SetDeadline(deadline) // zero (none) when ctx has no deadline
	if _, err := c.tcp.Write(c.frames[idx]); err != nil {
		return nil, err
	}
	var err error
	c.buf, err = readFrame(c.in, c.buf)
	return c.buf, err
}

func (c *conn) Close() error { return c.tcp.Close() }
