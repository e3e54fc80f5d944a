package target

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"

	"rpcarena/workers/go/internal/core"
)

// h1Conn is the lean HTTP/1.1 path for plain http:// targets: each request's
// bytes encoded once, one write per call on one keep-alive TCP connection, the
// reply framed by its Content-Length, chunks or the connection's end (nothing
// else of it is parsed). net/http's client costs several µs per call more, which wrk does not pay; TLS and HTTP/2 keep net/http.
// A server that ends the connection after a reply (`Connection: close`, as a
// keep-alive limit does) is ordinary: the reply counts, and the next call dials
// again inside its own time, as wrk and net/http do.
type h1Conn struct {
	addr   string
	conn   net.Conn // nil after the server closed it: the next call dials
	reader *bufio.Reader
	client *httpClient
	body   []byte
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
	h := &h1Conn{addr: host, client: c}
	if err := h.dial(ctx); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *h1Conn) dial(ctx context.Context) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", h.addr)
	if err != nil {
		return err
	}
	h.conn = conn
	if h.reader == nil {
		h.reader = bufio.NewReaderSize(conn, 64<<10)
	} else {
		h.reader.Reset(conn)
	}
	return nil
}

func (h *h1Conn) Call(ctx context.Context, idx int) (any, error) {
	if h.conn == nil {
		if err := h.dial(ctx); err != nil {
			return nil, err
		}
	}
	if deadline, ok := ctx.Deadline(); ok {
		h.conn.SetDeadline(deadline)
	}
	if _, err := h.conn.Write(h.client.encoded[idx]); err != nil {
		return nil, err
	}
	status, closing, err := h.readReply()
	if err != nil {
		return nil, err
	}
	if closing { // the reply counts; the next call dials again
		h.Close()
	}
	if !h.client.wanted(status) {
		return nil, &core.KindError{Kind: "status_" + strconv.Itoa(status), Err: fmt.Errorf("HTTP status %d", status)}
	}
	return h.body, nil
}

// readReply reads one response into h.body (reused: the drive loop checks a
// reply before the next call): its status line, the three headers that frame it,
// and a body of Content-Length bytes, in chunks, or up to the connection's end.
func (h *h1Conn) readReply() (status int, closing bool, err error) {
	line, err := h.reader.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, false, fmt.Errorf("not an HTTP/1.x status line: %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, closing, err := h.framing()
	if err != nil {
		return 0, false, err
	}
	switch {
	case chunked:
		err = h.readChunks()
	case length >= 0:
		h.body = append(h.body[:0], make([]byte, length)...)
		_, err = io.ReadFull(h.reader, h.body)
	default:
		h.body, err = io.ReadAll(h.reader)
		closing = true
	}
	return status, closing, err
}

// framing reads the headers: Content-Length (-1 when absent), chunked, Connection: close.
func (h *h1Conn) framing() (length int, chunked, closing bool, err error) {
	length = -1
	for {
		line, err := h.reader.ReadSlice('\n')
		if err != nil {
			return 0, false, false, err
		}
		name, value, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case len(name) == 0:
			return length, chunked, closing, nil
		case bytes.EqualFold(name, []byte("content-length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, false, false, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("transfer-encoding")):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case bytes.EqualFold(name, []byte("connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
}

func (h *h1Conn) readChunks() error {
	h.body = h.body[:0]
	for {
		line, err := h.reader.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bad chunk size %q", line)
		}
		if n == 0 {
			_, _, _, err := h.framing() // trailers, up to the empty line
			return err
		}
		start := len(h.body)
		h.body = append(h.body, make([]byte, n+2)...)
		if _, err := io.ReadFull(h.reader, h.body[start:]); err != nil {
			return err
		}
		h.body = h.body[:start+int(n)] // the chunk's CRLF dropped
	}
}

func (h *h1Conn) Close() error {
	if h.conn == nil {
		return nil
	}
	err := h.conn.Close()
	h.conn = nil
	return err
}
