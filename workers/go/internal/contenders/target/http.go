package target

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"rpcarena/workers/go/internal/core"
)

// httpClient sends requests rendered before measuring (method, URL, headers,
// body) over one connection per client: HTTP/1.1 keep-alive, or one HTTP/2
// connection (h2c on http://, h2 on https://).
type httpClient struct {
	requests []httpRequest
	checks   [][]check
	status   int // the expected status; 0: any 2xx
	http2    bool
	tls      *tls.Config // https:// (the description's TLS settings)
	encoded  [][]byte    // the requests' bytes for the lean HTTP/1.1 path (nil: net/http)
}

// httpRequest is one rendered request, as rpcarena.targets.build writes it.
type httpRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    *string           `json:"body"`
	header  http.Header
	body    []byte
}

func newHTTPClient(spec *core.Spec, d description, checks [][]check) (core.Client, error) {
	c := &httpClient{checks: checks, http2: d.HTTP2}
	if err := json.Unmarshal(orNull(d.ExpectStatus), &c.status); err != nil {
		return nil, fmt.Errorf("expect_status of an http target is a status code: %v", err)
	}
	c.tls = &tls.Config{}
	if d.TLS != nil {
		var err error
		if c.tls, err = d.TLS.httpsConfig(); err != nil {
			return nil, err
		}
	}
	for i, raw := range spec.Requests {
		var r httpRequest
		if err := json.Unmarshal(raw, &r); err != nil || r.Method == "" || r.URL == "" {
			return nil, fmt.Errorf("requests[%d]: want {method, url, headers, body}: %s", i, raw)
		}
		if _, err := http.NewRequest(r.Method, r.URL, nil); err != nil {
			return nil, fmt.Errorf("requests[%d]: %v", i, err)
		}
		r.header = http.Header{}
		for k, v := range r.Headers {
			r.header.Set(k, v)
		}
		if r.Body != nil {
			r.body = []byte(*r.Body)
		}
		c.requests = append(c.requests, r)
	}
	if !c.http2 {
		c.encoded = h1Requests(c.requests)
	}
	return c, nil
}

func (c *httpClient) Len() int { return len(c.requests) }

// Matches checks the body (JSON) against the request's --expect-json.
func (c *httpClient) Matches(idx int, reply any) bool {
	if len(c.checks[idx]) == 0 {
		return true
	}
	doc, err := decodeJSON(reply.([]byte))
	return err == nil && holds(doc, c.checks[idx])
}

// Explain says why a reply did not match (core.Explainer).
func (c *httpClient) Explain(idx int, reply any) string {
	doc, err := decodeJSON(reply.([]byte))
	if err != nil {
		return "the body is not JSON: " + err.Error()
	}
	return explain(doc, c.checks[idx])
}

// Dial gives the client its own transport, limited to one connection.
func (c *httpClient) Dial(ctx context.Context) (core.Conn, error) {
	if c.encoded != nil {
		return c.dialH1(ctx)
	}
	transport := &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true,
		Protocols: new(http.Protocols), TLSClientConfig: c.tls.Clone()}
	if c.http2 {
		transport.Protocols.SetHTTP2(true)
		transport.Protocols.SetUnencryptedHTTP2(true)
	} else {
		transport.Protocols.SetHTTP1(true)
	}
	return &httpConn{http: &http.Client{Transport: transport}, transport: transport, client: c}, nil
}

type httpConn struct {
	http      *http.Client
	transport *http.Transport
	client    *httpClient
}

func (h *httpConn) Call(ctx context.Context, idx int) (any, error) {
	r := &h.client.requests[idx]
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return nil, err
	}
	req.Header = r.header
	resp, err := h.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if h.client.http2 && resp.ProtoMajor != 2 {
		return nil, &core.KindError{Kind: "http_version", Err: fmt.Errorf("--http2 asked, the server answered in %s", resp.Proto)}
	}
	if !h.client.wanted(resp.StatusCode) {
		return nil, &core.KindError{Kind: "status_" + strconv.Itoa(resp.StatusCode), Err: fmt.Errorf("%s", resp.Status)}
	}
	return data, nil
}

func (c *httpClient) wanted(code int) bool {
	if c.status != 0 {
		return code == c.status
	}
	return code >= 200 && code < 300
}

func (h *httpConn) Close() error {
	h.transport.CloseIdleConnections()
	return nil
}
