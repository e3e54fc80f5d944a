package target

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"rpcarena/workers/go/internal/core"
)

// h1Conn is the lean HTTP/1.1 path for plain http:// targets: each request's
// bytes encoded once, one write per call on one keep-alive TCP connection, the
// reply read by net/http's own parser. net/http's client costs a few µs per
// call more, which wrk does not pay; TLS and HTTP/2 keep net/http.
type h1Conn struct {
	conn   net.Conn
	reader *bufio.Reader
	client *httpClient
}

// h1Requests encodes every request once, or returns nil when one of them
// needs net/http (another scheme, or another host than the first).
func h1Requests(requests []httpRequest) [][]byte {
	var host string
	out := make([][]byte, len(requests))
	for i, r := range requests {
		u, err := url.Parse(r.URL)
		if err != nil || u.Scheme != "http" || (host != "" && u.Host != host) {
			return nil
		}
		host = u.Host
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", r.Method, u.RequestURI(), u.Host)
		r.header.Write(&b)
		if r.body != nil {
			fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
		}
		b.WriteString("\r\n")
		b.Write(r.body)
		out[i] = b.Bytes()
	}
	return out
}

func (c *httpClient) dialH1(ctx context.Context) (core.Conn, error) {
	u, _ := url.Parse(c.requests[0].URL)
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	return &h1Conn{conn: conn, reader: bufio.NewReaderSize(conn, 64<<10), client: c}, nil
}

func (h *h1Conn) Call(ctx context.Context, idx int) (any, error) {
	if deadline, ok := ctx.Deadline(); ok {
		h.conn.SetDeadline(deadline)
	}
	if _, err := h.conn.Write(h.client.encoded[idx]); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(h.reader, nil)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.Close { // the server ends the connection: the next call dials again
		return nil, &core.KindError{Kind: core.KindConnection, Err: fmt.Errorf("the server closed the connection")}
	}
	if !h.client.wanted(resp.StatusCode) {
		return nil, &core.KindError{Kind: "status_" + strconv.Itoa(resp.StatusCode), Err: fmt.Errorf("%s", resp.Status)}
	}
	return data, nil
}

func (h *h1Conn) Close() error { return h.conn.Close() }
